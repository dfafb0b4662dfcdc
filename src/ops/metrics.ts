/**
 * Prometheus metrics (prom-client), one registry per service: requests by spec operation, database queries and
 * pool, logins, process and Node. Features register their own with `counter`, `histogram` and `gauge` (a gauge
 * reads its value when scraped, e.g. the webhook outbox depth). Recording is kept to a map lookup and an
 * observation per request or query; nothing is computed until `/metrics` is read.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Request, RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../db/knex';
import type { Operation } from '../http/spec';

type Labels = Record<string, string | number>;
/** What a gauge reads when scraped: one value, or one value per label set. */
export type GaugeReading = number | Array<{ labels: Labels; value: number }>;

export interface Metrics {
  readonly registry: Registry;
  readonly enabled: boolean;
  /** A counter (the existing one when `name` is registered already). */
  counter<L extends string>(name: string, help: string, labelNames?: readonly L[]): Counter<L>;
  histogram<L extends string>(name: string, help: string, labelNames?: readonly L[], buckets?: number[]): Histogram<L>;
  /** A gauge whose value `collect` reads at scrape time (it may query the database). */
  gauge(
    name: string,
    help: string,
    collect: () => GaugeReading | Promise<GaugeReading>,
    labelNames?: readonly string[],
  ): Gauge;
  /** A failed login (`reason`: unknown user or wrong password) and a login refused by the throttle. */
  loginFailed(reason: 'invalid_username' | 'incorrect_password'): void;
  loginThrottled(): void;
}

const SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics({ enabled = true }: { enabled?: boolean } = {}): Metrics {
  const registry = new Registry();
  const registers = [registry];
  const metrics: Metrics = {
    registry,
    enabled,
    // by name, once: a feature may ask for its counter where it records (the same metric every time)
    counter: (name, help, labelNames = []) =>
      (registry.getSingleMetric(name) as Counter<never>) ?? new Counter({ name, help, labelNames, registers }),
    histogram: (name, help, labelNames = [], buckets = SECONDS_BUCKETS) =>
      (registry.getSingleMetric(name) as Histogram<never>) ??
      new Histogram({ name, help, labelNames, buckets, registers }),
    gauge(name, help, collect, labelNames = []) {
      return new Gauge({
        name,
        help,
        labelNames,
        registers,
        async collect() {
          let reading: GaugeReading;
          try {
            reading = await collect();
          } catch {
            return; // the database is away: the other metrics still answer (and /readyz says why)
          }
          if (typeof reading === 'number') this.set(reading);
          else {
            this.reset();
            for (const { labels, value } of reading) this.set(labels, value);
          }
        },
      });
    },
    loginFailed: (reason) => loginFailures.inc({ reason }),
    loginThrottled: () => loginThrottles.inc(),
  };
  const loginFailures = metrics.counter('auth_login_failures_total', 'Logins refused for wrong credentials', [
    'reason',
  ]);
  const loginThrottles = metrics.counter(
    'auth_login_throttled_total',
    'Logins refused by the failed-login throttle (429)',
  );
  if (enabled) {
    collectDefaultMetrics({ register: registry });
    // gauges named like counters (promtool refuses them); `nodejs_active_*` by type carry the same numbers
    for (const name of ['handles', 'requests', 'resources']) registry.removeSingleMetric(`nodejs_active_${name}_total`);
  }
  return metrics;
}

/**
 * Counts and times every request by operation (the spec's operationId, or a fixed name outside the API: never the
 * raw URL, whose ids and queries would make unbounded label values), method and status class.
 */
export function instrumentRequests(
  metrics: Metrics,
  operations: Operation[],
  namespace: string,
  basePath: string,
): RequestHandler {
  const labels = ['operation', 'method', 'status_class'] as const;
  const total = metrics.counter('http_requests_total', 'HTTP requests answered', labels);
  const duration = metrics.histogram('http_request_duration_seconds', 'Time to answer an HTTP request', labels);
  // children by label values: prom-client hashes the labels on every call otherwise
  const children = new Map<string, { count: Counter.Internal; time: Histogram.Internal<string> }>();
  const nameOf = operationNamer(operations, namespace, basePath);
  return (req, res, next) => {
    const start = performance.now();
    res.once('finish', () => {
      const operation = (res.locals.operation as Operation | undefined)?.operationId ?? nameOf(req);
      const statusClass = `${Math.floor(res.statusCode / 100)}xx`;
      const key = `${operation} ${req.method} ${statusClass}`;
      let child = children.get(key);
      if (!child) {
        const values = { operation, method: req.method, status_class: statusClass };
        child = { count: total.labels(values), time: duration.labels(values) };
        children.set(key, child);
      }
      child.count.inc();
      child.time.observe((performance.now() - start) / 1000);
    });
    next();
  };
}

/**
 * The operation of a request that never reached its handler (refused by authentication, validation…): matched
 * here, off the hot path, against the spec's paths. Methods other than the spec's fold into one value.
 */
function operationNamer(operations: Operation[], namespace: string, basePath: string): (req: Request) => string {
  const routes = operations.map((op) => ({
    method: op.method.toUpperCase(),
    pattern: new RegExp(
      `^${escape(namespace)}${op.path
        .split(/\{\w+\}/)
        .map(escape)
        .join('[^/]+')}/?$`,
    ),
    operationId: op.operationId,
  }));
  const fixed = new Map(['livez', 'readyz', 'metrics'].map((name) => [`${basePath}/${name}`, name]));
  return (req) => {
    const path = req.originalUrl.split('?')[0];
    const named = fixed.get(path);
    if (named) return named;
    if (!path.startsWith(namespace)) return path.startsWith(`${basePath}/docs`) ? 'docs' : 'other';
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    return routes.find((r) => r.method === method && r.pattern.test(path))?.operationId ?? 'no_route';
  };
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const MAX_IN_FLIGHT = 10_000;

/** Times every query through Knex's events, and reads the connection pool (tarn) when scraped. */
export function instrumentDatabase(metrics: Metrics, db: Db): void {
  const duration = metrics.histogram('db_query_duration_seconds', 'Time a database query took', ['outcome']);
  const ok = duration.labels({ outcome: 'ok' });
  const failed = duration.labels({ outcome: 'error' });
  const started = new Map<string, number>();
  db.on('query', (query: { __knexQueryUid?: string }) => {
    // BEGIN/COMMIT/ROLLBACK carry no uid and get no response event: not timed
    if (!query.__knexQueryUid) return;
    if (started.size >= MAX_IN_FLIGHT) started.clear(); // a response lost to a driver bug must not grow the map
    started.set(query.__knexQueryUid, performance.now());
  });
  const finish = (histogram: Histogram.Internal<string>) => (_result: unknown, query: { __knexQueryUid: string }) => {
    const start = started.get(query.__knexQueryUid);
    if (start === undefined) return;
    started.delete(query.__knexQueryUid);
    histogram.observe((performance.now() - start) / 1000);
  };
  db.on('query-response', finish(ok));
  db.on('query-error', finish(failed));

  const pool = () => (db.client as { pool?: TarnPool }).pool;
  metrics.gauge(
    'db_pool_connections',
    'Database connections by state',
    () => {
      const p = pool();
      return (
        [
          ['used', p?.numUsed()],
          ['free', p?.numFree()],
          ['pending_acquires', p?.numPendingAcquires()],
          ['pending_creates', p?.numPendingCreates()],
        ] as const
      ).map(([state, value]) => ({ labels: { state }, value: value ?? 0 }));
    },
    ['state'],
  );
  metrics.gauge(
    'db_pool_max_connections',
    'Largest number of database connections the pool opens',
    () => pool()?.max ?? 0,
  );
}

interface TarnPool {
  max: number;
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
}

/**
 * `GET /metrics` in the Prometheus text format. With a token configured, only `Authorization: Bearer <token>`
 * reads it (compared in constant time: digests of equal length, whatever was sent).
 */
export function metricsRoute(metrics: Metrics, token?: string): RequestHandler {
  const expected = token ? digest(token) : undefined;
  return async (req, res) => {
    if (expected) {
      const sent = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim() ?? '';
      if (!timingSafeEqual(digest(sent), expected)) {
        res
          .status(401)
          .setHeader('WWW-Authenticate', 'Bearer realm="metrics"')
          .type('text/plain')
          .send('unauthorized\n');
        return;
      }
    }
    res.setHeader('Cache-Control', 'no-store');
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  };
}

const digest = (text: string) => createHash('sha256').update(text).digest();
