/**
 * Runs generated requests against a test service and checks the invariants on every answer:
 * - never a 5xx (response validation is on, so an answer outside the spec is a 500 too);
 * - every 4xx is `{code, message, data: {status}}` with `data.status` the HTTP status; `rest_invalid_param` names
 *   parameters of the operation (or `body`, `i18n_language`); `rest_missing_callback_param` lists required names;
 * - the documented order of checks: wrong credentials 401, anonymous writes 401, no capability 403, a body over
 *   the limit 413;
 * - a refused request and every read leave the database as it was (a cheap fingerprint of every table).
 *
 * The service is the real app (with response validation) on its own listening server, with room for long query
 * strings (Node's default 16 KB header limit would answer those itself) and a logger that keeps error lines so that
 * a 500 can be reported with its cause.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import pino from 'pino';
import { createApp } from '../../src/app';
import { REDACTED_PATHS } from '../../src/logger';
import { loadSpec, type LoadedSpec, type Operation } from '../../src/http/spec';
import { createThrottle } from '../../src/http/throttle';
import { can, type Role } from '../../src/users/roles';
import { NS, startService, TEST_NOW, type TestService } from '../support/app';
import type { Engine } from '../support/engines';
import { basic } from '../support/kit';
import {
  Joined,
  Long,
  Many,
  Raw,
  Ref,
  type Body,
  type FuzzRequest,
  type GeneratorContext,
  type Json,
  type Piece,
} from './generators';

export const EVENT_PASSWORD = 'sesame';
const MAX_NAME = 200;

/** A request as sent. */
export interface Concrete {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json?: unknown;
}

export interface Failure {
  /** Invariant with status and code, or with the logged cause of a 500: one entry per kind of failure. */
  signature: string;
  count: number;
  operations: Set<string>;
  /** The first request that showed it, as sent (bodies shortened). */
  request: string;
  response: string;
  /** The server's error log line for it, if any. */
  log?: string;
}

interface Pools {
  [kind: string]: Array<{ id: number; slug: string; name: string }>;
}

/** Violations found in one exchange (empty when it keeps every invariant). */
export type Violations = string[];

export class FuzzHarness {
  readonly spec: LoadedSpec;
  readonly operations: Map<string, Operation>;
  readonly failures = new Map<string, Failure>();
  /** operationId → status → count. */
  readonly stats = new Map<string, Map<number, number>>();
  requests = 0;
  private pools?: Pools;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  private counter = 0;

  private constructor(
    readonly service: TestService,
    readonly server: http.Server,
    readonly generatorContext: GeneratorContext,
    /** The last error lines the service logged. */
    private readonly errorLines: string[],
  ) {
    this.spec = generatorContext.spec;
    this.operations = new Map(this.spec.operations.map((op) => [op.operationId, op]));
  }

  static async start(engine: Engine): Promise<FuzzHarness> {
    // failed logins are part of the traffic: throttling them would turn later requests into 429s
    const service = await startService(engine, { LOGIN_MAX_FAILURES: '1000000' });
    const spec = loadSpec();
    const errorLines: string[] = [];
    const logger = pino(
      { level: 'error', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
      {
        write(line: string) {
          errorLines.push(line);
          if (errorLines.length > 200) errorLines.shift();
        },
      },
    );
    const { config } = service;
    const context = {
      config,
      db: service.database.db,
      spec,
      throttle: createThrottle(service.database.db, config, service.database.schema),
    };
    const app = createApp(context, { logger, validateResponses: true });
    const server = http.createServer({ maxHeaderSize: 1024 * 1024 }, app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const userIds = Object.values(service.users).map((u) => u.id);
    return new FuzzHarness(
      service,
      server,
      { spec, userIds, eventPassword: EVENT_PASSWORD, bodyLimit: 1024 * 1024 },
      errorLines,
    );
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.agent.destroy();
    await new Promise((resolve) => this.server.close(resolve));
    await this.service.close();
  }

  // -------------------------------------------------------------------------------------------------------------
  // Seeds

  /** A few records of every kind through the API: a category with a child, a tag, a venue, an organizer, events. */
  async seed(): Promise<void> {
    const tomorrow = new Date(Date.parse(TEST_NOW) + 86_400_000).toISOString().slice(0, 10);
    const when = { start_date: `${tomorrow} 10:00:00`, end_date: `${tomorrow} 12:00:00` };
    const music = await this.create('/categories', { name: 'Fuzz Music', description: '<p>Loud</p>' });
    const jazz = await this.create('/categories', { name: 'Fuzz Jazz', parent: music.id });
    const tag = await this.create('/tags', { name: 'fuzz-tag' });
    const venue = await this.create('/venues', { venue: 'Fuzz Hall', city: 'Utrecht', geo_lat: 52.09, geo_lng: 5.12 });
    const organizer = await this.create('/organizers', { organizer: 'Fuzz Org', email: 'org@example.com' });
    await this.create('/venues', { venue: 'Fuzz Editor Venue', status: 'draft' }, 'editor');
    await this.create('/organizers', { organizer: 'Fuzz Author Org' }, 'author');
    await this.create('/events', {
      title: 'Fuzz Published',
      ...when,
      categories: [jazz.id],
      tags: [tag.id],
      venue: venue.id,
      organizer: [organizer.id],
      featured: true,
      cost: '$10',
    });
    await this.create('/events', { title: 'Fuzz Draft', ...when, status: 'draft', categories: [music.id] });
    await this.create('/events', { title: 'Fuzz Protected', ...when, password: EVENT_PASSWORD, tags: [tag.id] });
    await this.create('/events', { title: 'Fuzz Author', ...when, venue: venue.id }, 'author');
    await this.create('/events', { title: 'Fuzz Contributor', ...when }, 'contributor');
    await this.create('/events', { title: 'Fuzz Private', ...when, status: 'private' }, 'editor');
  }

  private async create(path: string, body: object, role: Role = 'administrator'): Promise<{ id: number }> {
    const [login, password] = this.service.as(role);
    const answer = await this.send({
      method: 'POST',
      url: `${NS}${path}`,
      body: Buffer.from(JSON.stringify(body)),
      headers: {
        'content-type': 'application/json',
        authorization: basic(login, password),
      },
    });
    if (answer.status !== 201) throw new Error(`seeding ${path} answered ${answer.status}: ${answer.text}`);
    this.pools = undefined;
    return answer.json as { id: number };
  }

  // -------------------------------------------------------------------------------------------------------------
  // One exchange

  /** Sends the request, checks every invariant and records failures; returns the violations. */
  async exchange(
    request: FuzzRequest,
  ): Promise<{ violations: Violations; concrete: Concrete; answer: Answer; log?: string }> {
    const op = this.operations.get(request.operationId) as Operation;
    const concrete = await this.concretise(op, request);
    const before = await this.fingerprint();
    const answer = await this.send(concrete);
    this.requests++;
    const byStatus = this.stats.get(op.operationId) ?? new Map<number, number>();
    byStatus.set(answer.status, (byStatus.get(answer.status) ?? 0) + 1);
    this.stats.set(op.operationId, byStatus);

    const violations = checkAnswer(op, request, concrete, answer, cleanRequest(request, concrete));
    const read = concrete.method === 'GET' || concrete.method === 'HEAD';
    if (answer.status >= 400 || read) {
      const after = await this.fingerprint();
      const changed = Object.keys(after).filter((key) => after[key] !== before[key]);
      if (changed.length)
        violations.push(
          `state changed by a ${read ? 'read' : 'refused write'}: ${changed.map((k) => `${k} ${before[k]} → ${after[k]}`).join(', ')}`,
        );
    } else {
      this.pools = undefined;
    }
    const log = violations.length ? this.loggedError(concrete, answer) : undefined;
    for (const violation of violations) this.record(violation, op, concrete, answer, log);
    return { violations, concrete, answer, log: log && describeLog(log) };
  }

  /** The error line the service logged for this request, if any. */
  private loggedError(concrete: Concrete, answer: Answer): string | undefined {
    const id = String(answer.headers['x-request-id'] ?? concrete.headers['x-request-id']);
    return this.errorLines.find((line) => line.includes(`"id":${JSON.stringify(id)}`));
  }

  private record(violation: string, op: Operation, concrete: Concrete, answer: Answer, log: string | undefined): void {
    const code = (answer.json as { code?: string } | undefined)?.code ?? '-';
    // one bug shows on many operations: a 500 is grouped by its logged cause, anything else by status and code
    const cause = log && answer.status >= 500 ? errorCause(log) : undefined;
    const kind = violation.replace(/: .*/s, '');
    const signature = cause ? `${kind} | ${cause}` : `${kind} | ${answer.status} ${code}`;
    const known = this.failures.get(signature);
    if (known) {
      known.count++;
      known.operations.add(op.operationId);
      return;
    }
    this.failures.set(signature, {
      signature,
      count: 1,
      operations: new Set([op.operationId]),
      request: describeRequest(concrete),
      response: describeAnswer(answer, violation),
      log: log && describeLog(log),
    });
  }

  // -------------------------------------------------------------------------------------------------------------
  // From symbolic to concrete

  async concretise(op: Operation, request: FuzzRequest): Promise<Concrete> {
    const pools = await this.loadPools();
    const resolveRef = (ref: Ref): string | number => pick(pools, ref);
    const resolveJson = (value: Json): unknown => {
      if (value instanceof Ref) return resolveRef(value);
      if (value instanceof Long) return value.char.repeat(value.length);
      if (value instanceof Many) return Array.from({ length: value.count }, (_, i) => i + 1);
      if (value instanceof Joined) return value.items.map((item) => String(resolveJson(item))).join(',');
      if (Array.isArray(value)) return value.map(resolveJson);
      if (value && typeof value === 'object')
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveJson(v)]));
      return value;
    };
    const encodePiece = (piece: Piece | Joined): string => {
      if (piece instanceof Raw) return piece.encoded;
      if (piece instanceof Joined) return piece.items.map((item) => percentEncode(String(resolveJson(item)))).join(',');
      return percentEncode(String(resolveJson(piece as Json)));
    };

    const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodePiece(request.path[name]));
    const query = request.query
      .map(([key, value]) => {
        const k = percentEncode(key).replace(/%5B/g, '[').replace(/%5D/g, ']');
        return value === null ? k : `${k}=${encodePiece(value)}`;
      })
      .join('&');
    const headers: Record<string, string> = { 'x-request-id': `fuzz-${++this.counter}` };
    for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
    const auth = this.authorization(request);
    if (auth !== undefined) headers.authorization = auth;
    const body = request.body && encodeBody(request.body, resolveJson, headers);
    return {
      method: request.head ? 'HEAD' : op.method.toUpperCase(),
      url: `${NS}${path}${query ? `?${query}` : ''}`,
      headers,
      body,
    };
  }

  private authorization(request: FuzzRequest): string | undefined {
    switch (request.auth.kind) {
      case 'anonymous':
        return undefined;
      case 'role':
        return basic(...this.service.as(request.auth.role));
      case 'wrong-password':
        return basic(request.auth.login, 'wrong password');
      case 'header':
        return request.auth.value;
    }
  }

  private async loadPools(): Promise<Pools> {
    if (this.pools) return this.pools;
    const { db } = this.service.database;
    const posts: Array<{ id: number | string; type: string; slug: string; title: string }> = await db('posts')
      .select('id', 'type', 'slug', 'title')
      .orderBy('id', 'desc')
      .limit(300);
    const terms: Array<{ id: number | string; taxonomy: string; slug: string; name: string }> = await db('terms')
      .select('id', 'taxonomy', 'slug', 'name')
      .orderBy('id', 'desc')
      .limit(300);
    const pools: Pools = { event: [], venue: [], organizer: [], category: [], tag: [] };
    for (const p of posts) pools[p.type]?.push({ id: Number(p.id), slug: p.slug, name: p.title.slice(0, MAX_NAME) });
    for (const t of terms)
      pools[t.taxonomy === 'post_tag' ? 'tag' : 'category'].push({
        id: Number(t.id),
        slug: t.slug,
        name: t.name.slice(0, MAX_NAME),
      });
    this.pools = pools;
    return pools;
  }

  /** Row counts and cheap aggregates of every table the API writes. */
  async fingerprint(): Promise<Record<string, string>> {
    const rows = await this.service.database.db.raw(FINGERPRINT);
    const row = (Array.isArray(rows) ? rows[0] : rows.rows[0]) as Record<string, unknown>;
    // sums are strings on PostgreSQL and numbers on SQLite: compare their numeric value
    return Object.fromEntries(
      Object.entries(row).map(([k, v]) => [
        k,
        v === null || v === undefined ? '' : Number.isNaN(Number(v)) ? String(v) : String(Number(v)),
      ]),
    );
  }

  // -------------------------------------------------------------------------------------------------------------
  // Transport

  send(request: Concrete): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { ...request.headers };
      if (request.body) headers['content-length'] = request.body.length;
      const req = http.request(
        { host: '127.0.0.1', port: this.port, method: request.method, path: request.url, headers, agent: this.agent },
        (res) => {
          const chunks: Buffer[] = [];
          if (String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
            // an event stream does not end: its first chunk is the answer, then the stream is closed; a HEAD has
            // no chunk, its end is the answer
            const answer = (text: string) => resolve({ status: res.statusCode ?? 0, headers: res.headers, text });
            res.once('data', (chunk: Buffer) => {
              answer(chunk.toString('utf8'));
              req.destroy();
            });
            res.once('end', () => answer(''));
            return;
          }
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json: unknown;
            if (/json/.test(String(res.headers['content-type'] ?? '')) && text) {
              try {
                json = JSON.parse(text);
              } catch {
                json = undefined;
              }
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
          });
        },
      );
      req.setTimeout(60_000, () => req.destroy(new Error('no answer within 60 s')));
      req.on('error', reject);
      req.end(request.body);
    });
  }

  /** One line per operation: how many requests and which statuses. */
  summary(): string {
    const lines = [...this.stats.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([op, statuses]) => {
        const total = [...statuses.values()].reduce((a, b) => a + b, 0);
        const detail = [...statuses.entries()]
          .sort(([a], [b]) => a - b)
          .map(([s, n]) => `${s}×${n}`)
          .join(' ');
        return `  ${op.padEnd(26)} ${String(total).padStart(5)}  ${detail}`;
      });
    return lines.join('\n');
  }

  failureReport(): string {
    return [...this.failures.values()]
      .map(
        (f) =>
          `● ${f.signature} (${f.count}× on ${[...f.operations].join(', ')})\n` +
          `  request:  ${f.request}\n  response: ${f.response}${f.log ? `\n  log:      ${f.log}` : ''}`,
      )
      .join('\n\n');
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Invariants

const ERROR_KEYS = ['code', 'message', 'data'];

/** The invariants that one answer must keep, whatever was sent. */
export function checkAnswer(
  op: Operation,
  request: FuzzRequest,
  concrete: Concrete,
  answer: Answer,
  clean: boolean,
): Violations {
  const out: Violations = [];
  const { status } = answer;
  if (status >= 500) {
    out.push(`server error ${status}: ${shorten(answer.text, 300)}`);
    return out;
  }
  if (!answer.headers['content-language']) out.push('no Content-Language header');
  const head = concrete.method === 'HEAD';
  if (status >= 400 && !head) out.push(...checkErrorShape(op, answer));

  // the documented order of checks, for requests whose body the parsers accept
  const code = (answer.json as { code?: string } | undefined)?.code;
  if (clean && request.auth.kind === 'wrong-password' && status !== 401)
    out.push(`wrong credentials not answered 401: ${status} ${code ?? ''}`);
  if (
    clean &&
    request.auth.kind === 'anonymous' &&
    op.capability &&
    (status !== 401 || (!head && code !== 'rest_forbidden'))
  ) {
    out.push(`anonymous write not answered 401 rest_forbidden: ${status} ${code ?? ''}`);
  }
  if (
    clean &&
    request.auth.kind === 'role' &&
    op.capability &&
    !can({ id: 0, login: '', role: request.auth.role }, op.capability) &&
    status !== 403
  ) {
    out.push(
      `caller without the capability not answered 403: ${request.auth.role} without ${op.capability} got ${status} ${code ?? ''}`,
    );
  }
  if (request.body?.kind === 'oversize' && status !== 413)
    out.push(`body over the limit not answered 413: ${status} ${code ?? ''}`);
  return out;
}

/**
 * No malformed path escapes, and a body (if any) that the JSON or form parser reads without complaint: the parsers
 * run before authentication, so their refusals (400, 413, 415) rightly come first.
 */
export function cleanRequest(request: FuzzRequest, concrete: Concrete): boolean {
  if (Object.values(request.path).some((piece) => piece instanceof Raw)) return false;
  const body = request.body;
  if (body === undefined) return true;
  if ((concrete.body?.length ?? 0) > FORM_LIMITS.bytes) return false;
  // the JSON parser is strict: only an object or an array gets through it
  const parsable = (value: Json) =>
    typeof value === 'object' &&
    value !== null &&
    !(value instanceof Ref) &&
    !(value instanceof Long) &&
    !(value instanceof Joined) &&
    !(value instanceof Many);
  if (body.kind === 'json') return body.contentType === undefined && parsable(body.value);
  if (body.kind !== 'form') return false;
  // the form parser refuses more than 1000 fields and keys nested more than 32 deep
  const pairs = (concrete.body?.toString('utf8') ?? '').split('&');
  return (
    pairs.length <= FORM_LIMITS.fields &&
    pairs.every((pair) => (pair.split('=')[0].match(/\[/g) ?? []).length <= FORM_LIMITS.depth)
  );
}

const FORM_LIMITS = { bytes: 1024 * 1024, fields: 1000, depth: 30 };

function checkErrorShape(op: Operation, answer: Answer): Violations {
  const body = answer.json as
    | { code?: unknown; message?: unknown; data?: { status?: unknown; params?: unknown } }
    | undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return [`error without a JSON body: ${shorten(answer.text, 200)}`];
  const out: Violations = [];
  if (typeof body.code !== 'string' || !body.code) out.push('error without a code');
  if (typeof body.message !== 'string' || !body.message) out.push('error without a message');
  if (!body.data || typeof body.data !== 'object') return [...out, 'error without data'];
  if (body.data.status !== answer.status)
    out.push(`error data.status is not the HTTP status: ${String(body.data.status)}`);
  const extra = Object.keys(body).filter((k) => !ERROR_KEYS.includes(k));
  if (extra.length) out.push(`error with members besides code, message and data: ${extra.join(', ')}`);

  const names = parameterNames(op);
  const params = body.data.params;
  if (body.code === 'rest_invalid_param') {
    if (!params || typeof params !== 'object' || Array.isArray(params) || !Object.keys(params).length) {
      out.push(`rest_invalid_param without data.params naming a parameter: ${shorten(JSON.stringify(body.data), 200)}`);
    } else {
      const unknown = Object.keys(params).filter((name) => !names.all.has(name));
      if (unknown.length)
        out.push(
          `rest_invalid_param names what is not a parameter of the operation: ${unknown.map((n) => JSON.stringify(n)).join(', ')}`,
        );
      if (Object.values(params).some((v) => typeof v !== 'string'))
        out.push('rest_invalid_param with a non-string message');
    }
  }
  if (body.code === 'rest_missing_callback_param') {
    if (!Array.isArray(params) || !params.length || params.some((p) => typeof p !== 'string')) {
      out.push(`rest_missing_callback_param without a list of names: ${shorten(JSON.stringify(body.data), 200)}`);
    } else {
      const unknown = params.filter((name: string) => !names.required.has(name));
      if (unknown.length)
        out.push(`rest_missing_callback_param lists what is not a required parameter: ${unknown.join(', ')}`);
    }
  }
  return out;
}

const namesCache = new Map<string, { all: Set<string>; required: Set<string> }>();

/** Path, query and top-level body names of an operation (plus `body` and `i18n_language`), and the required ones. */
export function parameterNames(op: Operation): { all: Set<string>; required: Set<string> } {
  let names = namesCache.get(op.operationId);
  if (!names) {
    const all = new Set([
      'body',
      'i18n_language',
      ...op.parameters.map((p) => p.name),
      ...Object.keys(op.body?.properties ?? {}),
    ]);
    const required = new Set([
      ...op.parameters.filter((p) => p.required).map((p) => p.name),
      ...(op.body?.required ?? []),
    ]);
    names = { all, required };
    namesCache.set(op.operationId, names);
  }
  return names;
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers

function pick(pools: Pools, ref: Ref): string | number {
  const pool = pools[ref.kind];
  if (!pool.length) return ref.as === 'id' ? 987_654 : ref.as === 'idText' ? '987654' : 'no-such-record';
  const record = pool[ref.pick % pool.length];
  switch (ref.as) {
    case 'id':
      return record.id;
    case 'idText':
      return String(record.id);
    case 'slug':
      return record.slug;
    case 'name':
      return record.name;
  }
}

/** encodeURIComponent that survives lone surrogates (encoded as the UTF-8 of U+FFFD, as Buffer does). */
export function percentEncode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
}

/** `a[b][0]=c` pairs of a nested value, as the extended form parser reads them. */
function formEncode(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => formEncode(v, `${prefix}[${i}]`));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => formEncode(v, prefix ? `${prefix}[${k}]` : k));
  }
  const key = percentEncode(prefix).replace(/%5B/g, '[').replace(/%5D/g, ']');
  return [`${key}=${percentEncode(value === null || value === undefined ? '' : String(value))}`];
}

function encodeBody(body: Body, resolveJson: (value: Json) => unknown, headers: Record<string, string>): Buffer {
  const type = (value: string) => {
    headers['content-type'] ??= value;
  };
  switch (body.kind) {
    case 'json':
      headers['content-type'] = body.contentType ?? headers['content-type'] ?? 'application/json';
      return Buffer.from(JSON.stringify(resolveJson(body.value)) ?? 'null');
    case 'form': {
      type('application/x-www-form-urlencoded');
      const value = resolveJson(body.value);
      return Buffer.from(
        value && typeof value === 'object' ? formEncode(value).join('&') : percentEncode(String(value)),
      );
    }
    case 'raw': {
      headers['content-type'] = body.contentType;
      if (!body.encoding) return Buffer.from(body.text);
      if (body.encoding === 'gzip-valid') {
        headers['content-encoding'] = 'gzip';
        return zlib.gzipSync(body.text);
      }
      headers['content-encoding'] = body.encoding;
      return Buffer.from(body.text);
    }
    case 'deep': {
      headers['content-type'] = 'application/json';
      const base = resolveJson(body.value) as Record<string, unknown>;
      delete base[body.field];
      const [open, close] = body.open === 'array' ? ['[', ']'] : ['{"a":', '}'];
      const deep = `${open.repeat(body.depth)}${body.open === 'array' ? '' : '1'}${close.repeat(body.depth)}`;
      const head = JSON.stringify(base).slice(0, -1);
      return Buffer.from(`${head}${head.length > 1 ? ',' : ''}${JSON.stringify(body.field)}:${deep}}`);
    }
    case 'oversize':
      if (body.form) {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        return Buffer.from(`title=${'x'.repeat(body.bytes)}`);
      }
      headers['content-type'] = 'application/json';
      return Buffer.from(`{"title":"${'x'.repeat(body.bytes)}"}`);
  }
}

/** `URIError: Failed to decode param` from a logged error line, without the values in it. */
function errorCause(line: string): string | undefined {
  try {
    const err = (JSON.parse(line) as { err?: { type?: string; message?: string; code?: string } }).err;
    if (!err) return undefined;
    // knex puts the SQL before the database's message: keep the message
    const text = (err.message ?? '').split(' - ').pop() as string;
    const message = text.replace(/'[^']*'|"[^"]*"|(?<!varying\()\d+/g, '…').slice(0, 120);
    return `${err.type ?? 'Error'}${err.code ? ` ${err.code}` : ''}: ${message}`;
  } catch {
    return undefined;
  }
}

/** The logged error of a request: its type, message and first stack frames. */
function describeLog(line: string): string {
  try {
    const err = (JSON.parse(line) as { err?: { type?: string; code?: string; message?: string; stack?: string } }).err;
    if (!err) return shorten(line, 600);
    const frames = (err.stack ?? '')
      .split('\n')
      .filter((l) => l.trim().startsWith('at '))
      .slice(0, 4)
      .map((l) => l.trim().replace(/\(\/[^)]*?\/(src|node_modules)\//, '($1/'));
    return `${err.type ?? 'Error'}${err.code ? ` ${err.code}` : ''}: ${shorten(err.message ?? '', 400)} | ${frames.join(' | ')}`;
  } catch {
    return shorten(line, 600);
  }
}

export function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} chars)`;
}

export function describeRequest(c: Concrete): string {
  const headers = Object.entries(c.headers)
    .filter(([k]) => k !== 'x-request-id')
    .map(([k, v]) => `${k}: ${shorten(v, 80)}`)
    .join('; ');
  const body = c.body ? ` body(${c.body.length} B): ${shorten(c.body.toString('utf8'), 400)}` : '';
  return `${c.method} ${shorten(c.url, 400)}${headers ? ` [${headers}]` : ''}${body}`;
}

function describeAnswer(a: Answer, violation: string): string {
  return `${a.status} ${shorten(a.text, 400)} — ${violation}`;
}

const sumOf = (expr: string, table: string) => `(select coalesce(sum(${expr}), 0) from ${table})`;
const flag = (column: string) => `(case when ${column} then 1 else 0 end)`;

/** One query; the same text on SQLite and PostgreSQL. */
const FINGERPRINT = `select
  (select count(*) from posts) as posts_rows, (select coalesce(max(id), 0) from posts) as posts_max_id,
  (select max(modified_utc) from posts) as posts_modified,
  ${sumOf('length(type || status || slug || language || title || content || excerpt || password || date_utc) + coalesce(author_id, 0)', 'posts')} as posts_text,
  (select count(*) from events) as events_rows,
  ${sumOf(
    `length(status || start_local || end_local || start_utc || end_utc || timezone || currency_symbol || currency_position) + length(coalesce(cost, '')) + length(coalesce(website, '-'))
    + coalesce(venue_id, 0) + coalesce(post_parent, 0) + coalesce(image_id, 0) + ${flag('all_day')} + 2 * ${flag('show_map')} + 4 * ${flag('show_map_link')}
    + 8 * ${flag('hide_from_listings')} + 16 * ${flag('sticky')} + 32 * ${flag('featured')}`,
    'events',
  )} as events_fields,
  (select count(*) from venues) as venues_rows,
  ${sumOf(
    `length(address || city || country || province || state || zip || phone || stateprovince || website) + coalesce(geo_lat, 0) + coalesce(geo_lng, 0)
    + coalesce(image_id, 0) + ${flag('show_map')} + 2 * ${flag('show_map_link')}`,
    'venues',
  )} as venues_fields,
  (select count(*) from organizers) as organizers_rows,
  ${sumOf('length(phone || website || email) + coalesce(image_id, 0)', 'organizers')} as organizers_fields,
  (select count(*) from terms) as terms_rows, (select coalesce(max(id), 0) from terms) as terms_max_id,
  ${sumOf('length(taxonomy || name || slug || description || language) + parent', 'terms')} as terms_text,
  (select count(*) from term_relationships) as term_relationships_rows, ${sumOf('post_id * 7919 + term_id', 'term_relationships')} as term_relationships_sum,
  (select count(*) from event_organizers) as event_organizers_rows, ${sumOf('event_id * 7919 + organizer_id * 31 + position', 'event_organizers')} as event_organizers_sum,
  (select count(*) from images) as images_rows, (select coalesce(max(id), 0) from images) as images_max_id,
  (select count(*) from post_translations) as post_translations_rows, ${sumOf('post_id + length(language || field || value)', 'post_translations')} as post_translations_text,
  (select count(*) from term_translations) as term_translations_rows, ${sumOf('term_id + length(language || field || value)', 'term_translations')} as term_translations_text`;
