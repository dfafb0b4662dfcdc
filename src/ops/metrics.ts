/**
 * Prometheus metrics over HTTP: requests by spec operation, database queries and pool (recorded into the registry
 * of src/metrics/registry.ts), and the `/metrics` route. Recording is kept to a map lookup and an observation per
 * request or query; nothing is computed until `/metrics` is read.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Request, RequestHandler } from 'express';
import type { Counter, Histogram } from 'prom-client';
import type { Metrics } from '../metrics/registry';
import type { Db } from '../db/types';
import type { Operation } from '../http/spec';

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
      `^${escapeRegExp(namespace)}${op.path
        .split(/\{\w+\}/)
        .map(escapeRegExp)
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

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

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
 * `GET /metrics` in the Prometheus text format, to `Authorization: Bearer <METRICS_TOKEN>` only (compared in constant
 * time: digests of equal length, whatever was sent). Without a token configured it answers no one: its counters
 * tell when writes happen, private ones included (docs/decisions.md D122).
 */
export function metricsRoute(metrics: Metrics, token?: string): RequestHandler {
  const expected = token ? digest(token) : undefined;
  return async (req, res) => {
    const sent = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim() ?? '';
    if (!expected || !timingSafeEqual(digest(sent), expected)) {
      res.status(401).setHeader('WWW-Authenticate', 'Bearer realm="metrics"').type('text/plain').send('unauthorized\n');
      return;
    }
    res.setHeader('Cache-Control', 'no-store');
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  };
}

const digest = (text: string) => createHash('sha256').update(text).digest();
