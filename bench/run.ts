/**
 * `npm run bench`: for each engine and size, seeds a fresh database, starts the built server and a bare Express app
 * as child processes, and measures every scenario with autocannon over loopback. Prints a table per engine with the
 * ratios to the bare route and the issue's targets, and writes bench/results/latest.json. See bench/README.md.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import knex from 'knex';
import { createDb } from '../src/db/knex';
import { ADMIN, seed, type Fixture } from './seed';

type Engine = 'sqlite' | 'postgres';

const ROOT = path.resolve(__dirname, '..');
const RESULTS = path.join(__dirname, 'results');
const NS = '/calendar/events/v1';
const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',') as Engine[];
const SIZES = (process.env.BENCH_SIZES ?? '10000,1000000').split(',').map(Number);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SQLITE_ANALYZE = process.env.BENCH_SQLITE_ANALYZE !== '0';

interface Scenario {
  name: string;
  /** Called for every request (as `body`), so a scenario may spread its requests over many records. */
  path(f: Fixture): string;
  method?: 'POST';
  body?(f: Fixture): object;
  auth?: boolean;
  /** Sent to the bare Express app instead of the service. */
  bare?: boolean;
  /** Sends the path's current ETag in `If-None-Match`: measures the 304 path. */
  conditional?: boolean;
}

const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)];
let serial = 0;

/** One line per scenario. The bare route comes first (the others are compared with it), writes last. */
const SCENARIOS: Scenario[] = [
  { name: 'bare', bare: true, path: () => '/' },
  { name: 'list', path: () => `${NS}/events?per_page=15` },
  { name: 'list categories+search', path: (f) => `${NS}/events?categories=${f.categoryId}&search=${f.searchWord}` },
  { name: 'single', path: (f) => `${NS}/events/${pick(f.eventIds)}` },
  { name: 'categories', path: () => `${NS}/categories` },
  { name: 'single 304', conditional: true, path: (f) => `${NS}/events/${f.eventIds[0]}` },
  { name: 'venues', path: () => `${NS}/venues` },
  { name: 'list by venue', path: (f) => `${NS}/events?venue=${pick(f.venueIds)}` },
  { name: 'list by geolocation', path: (f) => `${NS}/events?geoloc_lat=${f.geoCenter.lat}&geoloc_lng=${f.geoCenter.lng}&geoloc_radius=25` },
  { name: 'create', method: 'POST', auth: true, path: () => `${NS}/events`, // unique titles: the write path, not slug races
    body: () => ({ title: `Bench event ${++serial}`, start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 12:00:00' }) },
];

interface Measurement {
  /** 1-minute load average just before: above the number of cores, something else was running too. */
  load: number;
  /** One request on the idle (primed) server before the load: what a lone client waits. */
  alone: { ms: number; status: number };
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  /** Socket errors, timeouts included. */
  errors: number;
  timeouts: number;
  statuses: Record<string, number>;
}

interface SizeResult {
  events: number;
  seedSeconds: number;
  databaseMiB: number;
  scenarios: Record<string, Measurement>;
}

// ---- cleanup: child processes and databases go away on success, errors and Ctrl-C alike

const cleanups = new Set<() => unknown>();
const children = new Set<ChildProcess>();
const stopping = new WeakSet<ChildProcess>();

/** Registers `task` for the final cleanup and returns it to run earlier (once). */
function onCleanup(task: () => unknown): () => Promise<void> {
  cleanups.add(task);
  return async () => { if (cleanups.delete(task)) await task(); };
}

async function cleanUp(): Promise<void> {
  for (const task of [...cleanups].reverse()) {
    cleanups.delete(task);
    try { await task(); } catch (err) { console.error('cleanup failed:', err); }
  }
}

process.on('exit', () => { for (const child of children) child.kill('SIGKILL'); });
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => { console.error(`\n${signal}: cleaning up`); void cleanUp().finally(() => process.exit(130)); });
}

// ---- processes

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    }).on('error', reject);
  });
}

async function start(script: string, port: number, env: Record<string, string>, log: string): Promise<ChildProcess> {
  const out = fs.openSync(log, 'a'); // server logs would drown the table (and a 501 is logged per request)
  const child = spawn(process.execPath, [script], {
    cwd: ROOT, env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', ...env }, stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  children.add(child);
  const task = () => stop(child, 'SIGTERM');
  cleanups.add(task);
  child.once('exit', (code, signal) => {
    children.delete(child);
    cleanups.delete(task);
    if (!stopping.has(child)) console.error(`  ! ${path.basename(script)} exited by itself (${signal ?? `code ${code}`}); see ${log}`);
  });
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}; see ${log}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/${env.DATABASE_URL ? 'readyz' : ''}`)).ok) return child;
    } catch { /* not listening yet */ }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${script} did not become ready; see ${log}`);
}

function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    stopping.add(child);
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

// ---- databases

async function postgresReachable(): Promise<boolean> {
  const admin = knex({ client: 'pg', connection: PG_URL, pool: { min: 0, max: 1 }, acquireConnectionTimeout: 3000 });
  try {
    await admin.raw('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await admin.destroy();
  }
}

/** A temporary SQLite file, or a new PostgreSQL schema selected through the connection's search_path. */
interface Database { url: string; size(): Promise<number>; drop(): Promise<void> }

async function freshDatabase(engine: Engine): Promise<Database> {
  if (engine === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'calendar-bench-'));
    const file = path.join(dir, 'calendar.sqlite');
    return { url: `sqlite:${file}`, size: async () => fs.statSync(file).size, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const admin = knex({ client: 'pg', connection: PG_URL, pool: { min: 0, max: 1 } });
  await admin.raw('create schema ??', [schema]);
  return {
    url: `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    async size() {
      const { rows } = await admin.raw(`select sum(pg_total_relation_size(c.oid)) as bytes from pg_class c
        join pg_namespace n on n.oid = c.relnamespace where n.nspname = ? and c.relkind = 'r'`, [schema]);
      return Number(rows[0].bytes);
    },
    async drop() {
      await admin.raw('drop schema if exists ?? cascade', [schema]);
      await admin.destroy();
    },
  };
}

// ---- measuring

async function measure(port: number, scenario: Scenario, fixture: Fixture): Promise<Measurement> {
  const headers: Record<string, string> = scenario.body ? { 'content-type': 'application/json' } : {};
  if (scenario.auth) headers.authorization = `Basic ${Buffer.from(`${ADMIN.login}:${ADMIN.password}`).toString('base64')}`;
  const load = os.loadavg()[0];
  if (scenario.conditional) {
    const etag = (await fetch(`http://127.0.0.1:${port}${scenario.path(fixture)}`)).headers.get('etag');
    if (etag) headers['if-none-match'] = etag;
  }
  await probe(port, scenario, fixture, headers); // the first call compiles validators, fills caches, checks the password
  const alone = await probe(port, scenario, fixture, headers);
  const run = autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: DURATION,
    method: scenario.method ?? 'GET',
    headers,
    requests: [{ setupRequest: (request) => ({ ...request, path: scenario.path(fixture), body: scenario.body && JSON.stringify(scenario.body(fixture)) }) }],
    warmup: WARMUP > 0 ? { connections: CONNECTIONS, duration: WARMUP } : undefined,
  });
  // autocannon's own percentiles are whole milliseconds; keep every latency for sub-millisecond ones
  const latencies: number[] = [];
  run.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  const result = await run;
  const sorted = Float64Array.from(latencies).sort();
  const quantile = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return {
    load,
    alone,
    rps: result.requests.average,
    p50: quantile(0.5),
    p99: quantile(0.99),
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statuses: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count])),
  };
}

async function probe(port: number, scenario: Scenario, fixture: Fixture, headers: Record<string, string>): Promise<Measurement['alone']> {
  const started = performance.now();
  try {
    const response = await fetch(`http://127.0.0.1:${port}${scenario.path(fixture)}`, {
      method: scenario.method ?? 'GET', headers, body: scenario.body && JSON.stringify(scenario.body(fixture)), signal: AbortSignal.timeout(60_000),
    });
    await response.arrayBuffer();
    return { ms: performance.now() - started, status: response.status };
  } catch {
    return { ms: NaN, status: 0 };
  }
}

async function runSize(engine: Engine, events: number, barePort: number): Promise<SizeResult> {
  const database = await freshDatabase(engine);
  const drop = onCleanup(() => database.drop());
  try {
    return await measureSize(engine, events, barePort, database);
  } finally {
    await drop();
  }
}

async function measureSize(engine: Engine, events: number, barePort: number, database: Database): Promise<SizeResult> {
  const db = createDb(database.url);
  const fixture = await seed(db, { events, analyze: SQLITE_ANALYZE }).finally(() => db.destroy());
  const databaseMiB = (await database.size()) / 2 ** 20;
  console.log(`${engine}, ${events} events: seeded in ${fixture.seedSeconds.toFixed(1)} s (${databaseMiB.toFixed(0)} MiB)`);

  const port = await freePort();
  const log = path.join(RESULTS, `server-${engine}-${events}.log`);
  const startServer = () => start(path.join(ROOT, 'dist/src/server.js'), port, { DATABASE_URL: database.url, LOG_LEVEL: 'warn' }, log);
  let server = await startServer();
  const scenarios: Record<string, Measurement> = {};
  for (const scenario of SCENARIOS) {
    const m = (scenarios[scenario.name] = await measure(scenario.bare ? barePort : port, scenario, fixture));
    console.log(`  ${scenario.name.padEnd(24)} ${m.rps.toFixed(0).padStart(6)} req/s  p50 ${m.p50.toFixed(2)} ms  p99 ${m.p99.toFixed(2)} ms` +
      `  alone ${m.alone.ms.toFixed(1)} ms  load ${m.load.toFixed(1)}` + (m.non2xx || m.errors ? `  ! ${JSON.stringify(m.statuses)} errors ${m.errors} (timeouts ${m.timeouts})` : ''));
    if (m.timeouts && !scenario.bare) {
      // the server still works through requests autocannon gave up on; the next scenario gets a fresh one
      await stop(server, 'SIGKILL');
      server = await startServer();
    }
  }
  await stop(server, 'SIGTERM');
  return { events, seedSeconds: fixture.seedSeconds, databaseMiB, scenarios };
}

// ---- reporting

const num = (x: number, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : '–');
const percentOfBare = (size: SizeResult, name: string) => (100 * size.scenarios[name].rps) / size.scenarios.bare.rps;

function table(engine: Engine, sizes: SizeResult[]): string {
  const lines = [`### ${engine}`, '', '| scenario | events | req/s | p50 ms | p99 ms | % of bare | non-2xx / errors | alone ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|'];
  for (const scenario of SCENARIOS) {
    for (const size of sizes) {
      const m = size.scenarios[scenario.name];
      lines.push(`| ${scenario.name} | ${size.events} | ${num(m.rps, 0)} | ${num(m.p50)} | ${num(m.p99)} | ` +
        `${num(percentOfBare(size, scenario.name), 0)} % | ${m.non2xx || m.errors ? `**${m.non2xx} / ${m.errors}**` : 0} | ${num(m.alone.ms, 1)} |`);
    }
  }
  lines.push('', 'seeding: ' + sizes.map((s) => `${s.events} events ${s.seedSeconds.toFixed(1)} s, ${s.databaseMiB.toFixed(0)} MiB`).join('; '));
  return lines.join('\n');
}

/**
 * The issue's targets. A scenario that got non-2xx answers or connection errors measured something else (INVALID);
 * timeouts are the service being too slow, so they count (FAIL).
 */
function checks(sizes: SizeResult[]): string[] {
  const broken = (m: Measurement) => m.non2xx > 0 || m.errors > m.timeouts;
  const verdict = (ok: boolean, sizesUsed: SizeResult[], names: string[]) =>
    sizesUsed.some((s) => names.some((n) => broken(s.scenarios[n]))) ? 'INVALID (non-2xx or errors)' : ok ? 'PASS' : 'FAIL';
  const lines: string[] = [];
  for (const size of sizes) {
    const single = percentOfBare(size, 'single');
    const list = percentOfBare(size, 'list');
    lines.push(`${verdict(single >= 40, [size], ['single'])}  single event read at ${size.events}: ${num(single, 1)} % of bare (target ≥ 40 %)`);
    lines.push(`${verdict(list >= 20, [size], ['list'])}  default list page at ${size.events}: ${num(list, 1)} % of bare (target ≥ 20 %)`);
  }
  if (sizes.length > 1) {
    const [small, large] = [sizes[0], sizes[sizes.length - 1]];
    const ratio = large.scenarios.list.p50 / small.scenarios.list.p50;
    lines.push(`${verdict(ratio <= 2, [small, large], ['list'])}  list p50 at ${large.events} is ${num(ratio)}× p50 at ${small.events} ` +
      `(${num(large.scenarios.list.p50)} / ${num(small.scenarios.list.p50)} ms; target ≤ 2×)`);
  }
  return lines;
}

async function main(): Promise<void> {
  fs.mkdirSync(RESULTS, { recursive: true });
  for (const file of fs.readdirSync(RESULTS)) if (file.endsWith('.log')) fs.rmSync(path.join(RESULTS, file)); // this run's logs only
  console.log('building the server (npm run build)');
  if (spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' }).status !== 0) throw new Error('npm run build failed');
  const barePort = await freePort();
  await start(path.join(__dirname, 'bare-server.js'), barePort, {}, path.join(RESULTS, 'bare-server.log'));

  const report: Record<string, SizeResult[]> = {};
  const output: string[] = [];
  for (const engine of ENGINES) {
    if (engine === 'postgres' && !(await postgresReachable())) {
      console.log(`PostgreSQL is not reachable at ${PG_URL}: skipped (set BENCH_DATABASE_URL or BENCH_ENGINES=sqlite)`);
      continue;
    }
    const sizes: SizeResult[] = [];
    for (const events of SIZES) sizes.push(await runSize(engine, events, barePort));
    report[engine] = sizes;
    output.push(table(engine, sizes), '', ...checks(sizes), '');
  }
  console.log(`\n${output.join('\n')}`);
  const file = path.join(RESULTS, 'latest.json');
  fs.writeFileSync(file, JSON.stringify({
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    settings: { connections: CONNECTIONS, duration: DURATION, warmup: WARMUP, sqliteAnalyze: SQLITE_ANALYZE },
    engines: report,
  }, null, 2));
  console.log(`results: ${path.relative(ROOT, file)}`);
}

main()
  .catch((err: unknown) => { console.error(err); process.exitCode = 1; })
  .finally(() => cleanUp());
