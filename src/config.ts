/** Configuration from the environment (docs/decisions.md D2). Parsed once, validated, frozen. */
import { DateTime } from 'luxon';

export const NAMESPACE = 'calendar/events/v1';
export const LANGUAGES = ['nl', 'en', 'fr', 'de', 'it', 'ja', 'nb', 'pl', 'pt-br', 'es', 'sv'] as const;
export type Language = (typeof LANGUAGES)[number];

export interface Config {
  port: number;
  host: string;
  /** Path prefix of the REST root, '' or '/something' without a trailing slash. */
  basePath: string;
  databaseUrl: string;
  siteTimezone: string;
  defaultLanguage: Language;
  /** Public site URL for `url` fields; undefined means "the REST root of the request". */
  publicUrl?: string;
  /**
   * The hosts (`name` or `name:port`, lower case) requests may name (ALLOWED_HOSTS): others are 400
   * `rest_invalid_host`. Undefined: any well-formed host.
   */
  allowedHosts?: string[];
  admin?: { login: string; password: string };
  logLevel: string;
  trustProxy: boolean;
  /** Failed logins allowed per login (and, ×5, per address) in one window before 429. */
  loginMaxFailures: number;
  loginFailureWindowSeconds: number;
  /** Requests one feed key may make per minute before 429 (each application password counts apart). */
  feedKeyMaxRequests: number;
  bodyLimit: string;
  /** Keep rendered records in memory (RENDER_CACHE=off turns it off; src/cache/). */
  renderCache: boolean;
  /** The representation cache's byte budget (RENDER_CACHE_MB, in MiB). */
  renderCacheBytes: number;
  /** Keep whole answers of repeated reads in memory (ANSWER_CACHE=off turns it off; src/cache/answers.ts). */
  answerCache: boolean;
  /** The answer cache's byte budget (ANSWER_CACHE_MB, in MiB). */
  answerCacheBytes: number;
  /** Seconds anonymous GET answers may be cached publicly (0: never). */
  cacheMaxAge: number;
  /** Days audit entries are kept (`AUDIT_RETENTION_DAYS`). */
  auditRetentionDays: number;
  /** Allowed CORS origins: '*' (default), a comma-separated list, or none when empty. */
  corsOrigins: string[] | '*';
  /** Longest a request may take before the server gives up on it. */
  requestTimeoutMs: number;
  /** Most events one iCalendar feed carries (ICAL_MAX_EVENTS). */
  icalMaxEvents: number;
  /** Serve `/metrics` and record requests and queries for it (METRICS=off turns it all off). */
  metrics: boolean;
  /** When set, `/metrics` answers only `Authorization: Bearer <token>`. */
  metricsToken?: string;
  /** How far ahead open-ended recurring series are materialised. */
  recurrenceHorizonMonths: number;
  /** Days the change feed keeps its changes (older cursors are 410). */
  changesRetentionDays: number;
  /** Change stream: open streams one caller (a user, or an anonymous address) may hold; more are 429. */
  streamMaxPerCaller: number;
  /** Change stream: open streams this node holds at most; more are 429. */
  streamMaxOpen: number;
  /** Change stream: a quiet stream gets a `: ping` comment this often. */
  streamHeartbeatMs: number;
  /** Change stream on SQLite: how often the node looks for other processes' writes while streams are open. */
  streamPollMs: number;
  /** Change stream: a client whose unread bytes pass this is disconnected (it resumes with `Last-Event-ID`). */
  streamMaxBufferBytes: number;
  /** Webhooks: seconds to wait before each retry after the first attempt. */
  webhookRetrySchedule: number[];
  /** Webhooks: a subscription failing this long without a success is disabled. */
  webhookDisableAfterSeconds: number;
  /** Webhooks: a receiver must answer within this. */
  webhookTimeoutMs: number;
  /** Webhooks: how often the dispatcher looks for due messages. */
  webhookPollMs: number;
  /** Webhooks: deliver to loopback and private addresses too (tests only). */
  webhookAllowPrivate: boolean;
  /** Key that seals webhook secrets at rest (AES-256-GCM); unset: stored as is. */
  webhookSecretKey?: string;
  /**
   * Host names (no port) `/mcp` answers and whose `Origin` it accepts (DNS rebinding protection, D103): the
   * loopback names, PUBLIC_URL's host and MCP_ALLOWED_HOSTS.
   */
  mcpAllowedHosts: string[];
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const port = integer(env.PORT, 8080, 'PORT', 0, 65535);
  const basePath = (env.BASE_PATH ?? '').replace(/\/+$/, '');
  if (basePath && !basePath.startsWith('/')) throw new ConfigError('BASE_PATH must start with "/"');
  const siteTimezone = env.SITE_TIMEZONE || 'UTC';
  if (!DateTime.now().setZone(siteTimezone).isValid)
    throw new ConfigError(`SITE_TIMEZONE is not a known time zone: ${siteTimezone}`);
  const defaultLanguage = (env.DEFAULT_LANGUAGE || 'en') as Language;
  if (!LANGUAGES.includes(defaultLanguage))
    throw new ConfigError(`DEFAULT_LANGUAGE must be one of ${LANGUAGES.join(', ')}`);
  const publicUrl = env.PUBLIC_URL ? env.PUBLIC_URL.replace(/\/+$/, '') : undefined;
  if (publicUrl && !/^https?:\/\/[^/]/.test(publicUrl))
    throw new ConfigError('PUBLIC_URL must be an absolute http(s) URL');
  if (Boolean(env.ADMIN_LOGIN) !== Boolean(env.ADMIN_PASSWORD))
    throw new ConfigError('ADMIN_LOGIN and ADMIN_PASSWORD go together');
  return Object.freeze({
    port,
    host: env.HOST || '0.0.0.0',
    basePath,
    databaseUrl: env.DATABASE_URL || 'sqlite:./data/calendar.sqlite',
    siteTimezone,
    defaultLanguage,
    publicUrl,
    allowedHosts: hostList(env.ALLOWED_HOSTS),
    admin: env.ADMIN_LOGIN ? { login: env.ADMIN_LOGIN, password: env.ADMIN_PASSWORD as string } : undefined,
    logLevel: env.LOG_LEVEL || 'info',
    trustProxy: env.TRUST_PROXY === '1' || env.TRUST_PROXY === 'true',
    loginMaxFailures: integer(env.LOGIN_MAX_FAILURES, 10, 'LOGIN_MAX_FAILURES', 1, 1_000_000),
    loginFailureWindowSeconds: integer(
      env.LOGIN_FAILURE_WINDOW_SECONDS,
      900,
      'LOGIN_FAILURE_WINDOW_SECONDS',
      1,
      86_400 * 30,
    ),
    feedKeyMaxRequests: integer(env.FEED_KEY_MAX_REQUESTS, 60, 'FEED_KEY_MAX_REQUESTS', 1, 1_000_000),
    bodyLimit: env.BODY_LIMIT || '1mb',
    renderCache: !['off', '0', 'false'].includes((env.RENDER_CACHE ?? '').trim().toLowerCase()),
    renderCacheBytes: integer(env.RENDER_CACHE_MB, 64, 'RENDER_CACHE_MB', 1, 65_536) * 1024 * 1024,
    answerCache: !['off', '0', 'false'].includes((env.ANSWER_CACHE ?? '').trim().toLowerCase()),
    answerCacheBytes: integer(env.ANSWER_CACHE_MB, 32, 'ANSWER_CACHE_MB', 1, 65_536) * 1024 * 1024,
    cacheMaxAge: integer(env.CACHE_MAX_AGE, 30, 'CACHE_MAX_AGE', 0, 86_400),
    auditRetentionDays: integer(env.AUDIT_RETENTION_DAYS, 365, 'AUDIT_RETENTION_DAYS', 1, 36_500),
    corsOrigins:
      env.CORS_ORIGINS === undefined || env.CORS_ORIGINS.trim() === '*'
        ? '*'
        : env.CORS_ORIGINS.split(',')
            .map((o) => o.trim())
            .filter(Boolean),
    requestTimeoutMs: integer(env.REQUEST_TIMEOUT_MS, 30_000, 'REQUEST_TIMEOUT_MS', 1_000, 600_000),
    icalMaxEvents: integer(env.ICAL_MAX_EVENTS, 10_000, 'ICAL_MAX_EVENTS', 1, 1_000_000),
    metrics: !['off', '0', 'false'].includes((env.METRICS ?? '').trim().toLowerCase()),
    metricsToken: env.METRICS_TOKEN || undefined,
    recurrenceHorizonMonths: integer(env.RECURRENCE_HORIZON_MONTHS, 24, 'RECURRENCE_HORIZON_MONTHS', 1, 120),
    changesRetentionDays: integer(env.CHANGES_RETENTION_DAYS, 30, 'CHANGES_RETENTION_DAYS', 1, 3650),
    streamMaxPerCaller: integer(env.STREAM_MAX_PER_CALLER, 5, 'STREAM_MAX_PER_CALLER', 1, 1000),
    streamMaxOpen: integer(env.STREAM_MAX_OPEN, 1000, 'STREAM_MAX_OPEN', 1, 100_000),
    streamHeartbeatMs: integer(env.STREAM_HEARTBEAT_MS, 15_000, 'STREAM_HEARTBEAT_MS', 10, 3_600_000),
    streamPollMs: integer(env.STREAM_POLL_MS, 200, 'STREAM_POLL_MS', 10, 60_000),
    streamMaxBufferBytes: integer(env.STREAM_MAX_BUFFER_BYTES, 1_048_576, 'STREAM_MAX_BUFFER_BYTES', 1024, 1 << 30),
    webhookRetrySchedule: retrySchedule(env.WEBHOOK_RETRY_SCHEDULE),
    webhookDisableAfterSeconds: integer(
      env.WEBHOOK_DISABLE_AFTER_SECONDS,
      5 * 86_400,
      'WEBHOOK_DISABLE_AFTER_SECONDS',
      1,
      365 * 86_400,
    ),
    webhookTimeoutMs: integer(env.WEBHOOK_TIMEOUT_MS, 10_000, 'WEBHOOK_TIMEOUT_MS', 100, 60_000),
    webhookPollMs: integer(env.WEBHOOK_POLL_MS, 1_000, 'WEBHOOK_POLL_MS', 10, 60_000),
    webhookAllowPrivate: env.WEBHOOK_ALLOW_PRIVATE === '1' || env.WEBHOOK_ALLOW_PRIVATE === 'true',
    webhookSecretKey: env.WEBHOOK_SECRET_KEY || undefined,
    mcpAllowedHosts: [
      ...new Set([
        'localhost',
        '127.0.0.1',
        '[::1]',
        ...(publicUrl ? [new URL(publicUrl).hostname] : []),
        ...(env.MCP_ALLOWED_HOSTS ?? '')
          .split(',')
          .map((h) => h.trim().toLowerCase())
          .filter(Boolean),
      ]),
    ],
  });
}

/** ALLOWED_HOSTS: comma-separated `name` or `name:port` (no scheme, no path); unset or empty: no list. */
function hostList(raw: string | undefined): string[] | undefined {
  const hosts = (raw ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const bad = hosts.find((h) => !WELL_FORMED_HOST.test(h));
  if (bad !== undefined) throw new ConfigError(`ALLOWED_HOSTS: not a host name or name:port: ${bad}`);
  return hosts.length ? hosts : undefined;
}

/** A host as a Host header may name it: a DNS name or IPv4 address, or a bracketed IPv6 address, then a port. */
export const WELL_FORMED_HOST = /^(?:[a-z0-9_][a-z0-9_-]*(?:\.[a-z0-9_-]+)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** Default: immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (the first attempt is immediate). */
const DEFAULT_RETRIES = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000];

function retrySchedule(raw: string | undefined): number[] {
  if (raw === undefined || raw.trim() === '') return DEFAULT_RETRIES;
  const delays = raw.split(',').map((part) => Number(part.trim()));
  if (delays.some((d) => !Number.isFinite(d) || d < 0 || d > 7 * 86_400)) {
    throw new ConfigError('WEBHOOK_RETRY_SCHEDULE must be comma-separated seconds from 0 to 604800');
  }
  return delays;
}

function integer(raw: string | undefined, fallback: number, name: string, min: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}`);
  return value;
}
