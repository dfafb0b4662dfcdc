/**
 * `FIXTURE=fixture.json npx tsx bench/statements.ts DATABASE_URL [SECONDS]`: the `mix` scenario (bench/mix.ts) on a
 * database `bench/seed-database.ts` seeded, against the service run in this process, with every statement the
 * drivers run timed (better-sqlite3's statement runs; PostgreSQL's round trips, queueing included). Prints the
 * statements by total time, their text with the bound values left out: where a scenario's database time goes.
 * `COLD=name,…` (bench/cold.ts's names, `list search` say) runs those cold queries one at a time instead, SECONDS of
 * each after one untimed request (the first of its kind may read what later ones find memoised). `CREATES=1` runs the
 * bench's `create` scenario instead (10 at a time, SECONDS after one untimed create). `WARMUP=seconds` runs the mix
 * that long first, untimed. The caches' counters over the timed part follow the total (answers retired by reason).
 */
import fs from 'node:fs';
import type { Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { createDb } from '../src/db/knex';
import type { AppContext } from '../src/http/context';
import { createHttpServer } from '../src/http/request-classes';
import { loadSpec } from '../src/http/spec';
import { createThrottle } from '../src/http/throttle';
import { createLogger } from '../src/logger';
import { coldQueries } from './cold';
import { Mix } from './mix';
import { ADMIN_AUTH, type Fixture } from './seed';

interface Timing {
  runs: number;
  ms: number;
  max: number;
}
const timings = new Map<string, Timing>();
/** When the timed part of the run began (after any warm-up). */
let measuredSince = 0;

function record(sql: string, ms: number): void {
  const key = sql.replace(/\s+/g, ' ').slice(0, 300);
  const t = timings.get(key) ?? { runs: 0, ms: 0, max: 0 };
  t.runs++;
  t.ms += ms;
  t.max = Math.max(t.max, ms);
  timings.set(key, t);
}

/** Times every run of the drivers' statements. */
function timeStatements(): void {
  const statement = Object.getPrototypeOf(new Database(':memory:').prepare('select 1')) as Record<string, unknown>;
  for (const name of ['all', 'get', 'run', 'iterate']) {
    const original = statement[name] as (...args: unknown[]) => unknown;
    statement[name] = function (this: { source: string }, ...args: unknown[]) {
      const started = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        record(this.source, performance.now() - started);
      }
    };
  }
  const client = Client.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const query = client.query;
  client.query = function (this: unknown, config: unknown, ...rest: unknown[]) {
    const started = performance.now();
    const result = query.call(this, config, ...rest);
    const text = typeof config === 'string' ? config : String((config as { text?: string }).text);
    if (result instanceof Promise) void result.finally(() => record(text, performance.now() - started));
    return result;
  };
}

async function main(): Promise<void> {
  const [url, seconds = '30'] = process.argv.slice(2);
  if (!url || !process.env.FIXTURE) throw new Error('usage: FIXTURE=fixture.json bench/statements.ts DATABASE_URL');
  const fixture = JSON.parse(fs.readFileSync(process.env.FIXTURE, 'utf8')) as Fixture;
  const config = loadConfig({ ...process.env, DATABASE_URL: url });
  const db = createDb(url);
  const app = createApp(
    { config, db, spec: loadSpec(), throttle: createThrottle(db, config) },
    { logger: createLogger('silent') },
  );
  const server = await new Promise<Server>((resolve) => {
    const s = createHttpServer(app).listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = (server.address() as { port: number }).port;
  const context = app.locals.context as AppContext;
  timeStatements();
  measuredSince = performance.now();
  const done = process.env.COLD
    ? await runCold(port, fixture, process.env.COLD.split(','), Number(seconds))
    : process.env.CREATES
      ? await runCreates(port, Number(seconds))
      : await runMix(port, fixture, Number(seconds), context);
  const wall = performance.now() - measuredSince;
  server.close();
  await db.destroy();
  const total = [...timings.values()].reduce((sum, t) => sum + t.ms, 0);
  console.log(`${done}; statements ${total.toFixed(0)} ms of ${wall.toFixed(0)} ms wall`);
  console.log(await cacheCounters(context));
  for (const [sql, t] of [...timings].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25)) {
    const share = ((100 * t.ms) / total).toFixed(1).padStart(5);
    console.log(`${share} %  ${t.runs} runs, mean ${(t.ms / t.runs).toFixed(2)} ms, max ${t.max.toFixed(0)} ms`);
    console.log(`         ${sql}`);
  }
}

/** The answer and representation caches' counters over the run (hits, misses, retirements by reason…). */
async function cacheCounters({ metrics }: AppContext): Promise<string> {
  const counted = await metrics.registry.getMetricsAsJSON();
  return counted
    .filter(({ name, type }) => /^(answer|representation)_cache_/.test(name) && String(type) === 'counter')
    .flatMap(({ name, values }) =>
      values.map(
        ({ labels, value }) => `${name.replace(/_total$/, '')}${labels.reason ? `{${labels.reason}}` : ''} ${value}`,
      ),
    )
    .join(', ');
}

/** `WARMUP=seconds` of the same mix first, neither timed nor counted (the bench's own warm-up). */
async function runMix(port: number, fixture: Fixture, seconds: number, context: AppContext): Promise<string> {
  const mix = new Mix(fixture);
  const warmup = Number(process.env.WARMUP ?? 0);
  if (warmup > 0) {
    await mix.run([port], 10, warmup);
    timings.clear();
    context.metrics.registry.resetMetrics();
    measuredSince = performance.now();
  }
  const r = await mix.run([port], 10, seconds);
  return `${(r.requests / r.seconds).toFixed(0)} req/s, ${r.writes} writes`;
}

/** The bench's `create` scenario: POST /events with Basic auth, 10 at a time. */
async function runCreates(port: number, seconds: number): Promise<string> {
  const headers = { authorization: ADMIN_AUTH, 'content-type': 'application/json' };
  const until = performance.now() + seconds * 1000;
  let created = 0;
  const one = async (serial: number) => {
    const body = JSON.stringify({
      title: `Bench event ${serial}`,
      start_date: '2030-01-01 10:00:00',
      end_date: '2030-01-01 12:00:00',
    });
    const res = await fetch(`http://127.0.0.1:${port}/calendar/events/v1/events`, { method: 'POST', headers, body });
    await res.arrayBuffer();
    if (res.status === 201) created++;
  };
  let serial = 0;
  await one(++serial);
  timings.clear();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (performance.now() < until) await one(++serial);
    }),
  );
  return `${created} created, ${((1000 * created) / (performance.now() - started)).toFixed(0)} /s`;
}

/** The named cold queries, one request at a time; the statements of each one's first request are not counted. */
async function runCold(port: number, fixture: Fixture, names: string[], seconds: number): Promise<string> {
  let requests = 0;
  for (const query of coldQueries(fixture, Date.now()).filter((q) => names.includes(q.name))) {
    const ask = async (k: number) => (await fetch(`http://127.0.0.1:${port}${query.path(k)}`)).arrayBuffer();
    await ask(0);
    timings.clear();
    const until = performance.now() + seconds * 1000;
    for (let k = 1; performance.now() < until; k++, requests++) await ask(k);
  }
  return `${requests} cold requests`;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
