/**
 * `[IDS=1,2,3] npx tsx bench/profile.ts DATABASE_URL PATH [SECONDS] [METHOD BODY]` (`{n}` in PATH: one of IDS), or
 * `FIXTURE=fixture.json npx tsx bench/profile.ts DATABASE_URL mix [SECONDS]` (the `mix` scenario, bench/mix.ts, on
 * the database `bench/seed-database.ts` seeded and printed that fixture for): runs
 * the built server (`npm run build` first) under `node --cpu-prof` on an existing database (a seeded bench database,
 * say), loads PATH with autocannon, stops the server and prints where the CPU time went: the top functions by self time
 * and the time per package. The profile itself stays in bench/results/profiles/ (open it in Chrome DevTools).
 * HEADERS (JSON) adds request headers: an MCP call (`/mcp`, POST) needs `accept` and `mcp-protocol-version`.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import autocannon from 'autocannon';
import { Mix } from './mix';
import { ADMIN_AUTH, type Fixture } from './seed';

const ROOT = path.resolve(__dirname, '..');
const DIR = path.join(__dirname, 'results', 'profiles');

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  startTime: number;
  endTime: number;
}

async function main(): Promise<void> {
  const [url, target, seconds = '10', method = 'GET', body] = process.argv.slice(2);
  if (!url || !target) throw new Error('usage: bench/profile.ts DATABASE_URL PATH [SECONDS] [METHOD BODY]');
  fs.mkdirSync(DIR, { recursive: true });
  const before = new Set(fs.readdirSync(DIR));
  const port = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  const child = spawn(process.execPath, ['--cpu-prof', '--cpu-prof-dir', DIR, 'dist/src/server.js'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: 'inherit',
  });
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) break;
    } catch {
      /* starting */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  if (target === 'mix') await loadMix(port, Number(seconds));
  else await loadPath(port, target, seconds, method, body);
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGINT');
  });
  const file = fs.readdirSync(DIR).find((f) => !before.has(f) && f.endsWith('.cpuprofile'));
  if (!file) throw new Error('no profile written');
  summarise(JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')) as Profile);
  console.log(`profile: bench/results/profiles/${file}`);
}

/** The mix on the seeded database of `FIXTURE`, with its writes, 10 connections. */
async function loadMix(port: number, seconds: number): Promise<void> {
  if (!process.env.FIXTURE) throw new Error('FIXTURE: the fixture bench/seed-database.ts printed for the database');
  const fixture = JSON.parse(fs.readFileSync(process.env.FIXTURE, 'utf8')) as Fixture;
  const r = await new Mix(fixture).run([port], 10, seconds);
  const sorted = [...r.latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  console.log(
    `${(r.requests / r.seconds).toFixed(0)} req/s, p50 ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms, ` +
      `${r.writes} writes, ${r.stale} stale, ${r.unexpected} unexpected`,
  );
}

async function loadPath(port: number, target: string, seconds: string, method: string, body?: string): Promise<void> {
  const headers: Record<string, string> = {
    ...(body ? { 'content-type': 'application/json' } : {}),
    ...(JSON.parse(process.env.HEADERS ?? '{}') as Record<string, string>),
  };
  if (method !== 'GET') headers.authorization = ADMIN_AUTH;
  let serial = 0;
  const ids = (process.env.IDS ?? '1').split(','); // what `{n}` in PATH stands for, one picked per request
  // IF_NONE_MATCH=1: the ETag of the first id's answer in If-None-Match (the 304 path)
  if (process.env.IF_NONE_MATCH)
    headers['if-none-match'] =
      (await fetch(`http://127.0.0.1:${port}${target.replace('{n}', ids[0])}`)).headers.get('etag') ?? '';
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: 10,
    duration: Number(seconds),
    method: method as 'GET',
    headers,
    requests: [
      {
        setupRequest: (r) => ({
          ...r,
          path: target.replace('{n}', String(ids[Math.floor(Math.random() * ids.length)])),
          body: body?.replace('{serial}', String(++serial)),
        }),
      },
    ],
  });
  console.log(`${result.requests.average.toFixed(0)} req/s, p50 ${result.latency.p50} ms, non-2xx ${result.non2xx}`);
}

function summarise(profile: Profile): void {
  const total = profile.samples.length;
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  const hits = new Map<number, number>();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  for (const node of profile.nodes) {
    const count = hits.get(node.id) ?? 0;
    if (!count) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url.replace(/^file:\/\//, '').replace(`${ROOT}/`, '');
    const name =
      `${functionName || '(anonymous)'} ${where ? `${where.split('node_modules/').pop()}:${lineNumber + 1}` : ''}`.trim();
    byFunction.set(name, (byFunction.get(name) ?? 0) + count);
    const pkg = where.includes('node_modules/')
      ? where
          .split('node_modules/')
          .pop()!
          .split('/')
          .slice(0, where.includes('node_modules/@') ? 2 : 1)
          .join('/')
      : where.startsWith('node:')
        ? 'node core'
        : where.startsWith('dist/')
          ? 'service'
          : functionName.startsWith('(')
            ? functionName
            : 'other';
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + count);
  }
  const show = (title: string, map: Map<string, number>, n: number) => {
    console.log(`\n${title}`);
    for (const [name, count] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n)) {
      console.log(`${((100 * count) / total).toFixed(1).padStart(5)} %  ${name}`);
    }
  };
  show('self time by area', byArea(profile, hits), 12);
  show('self time by package', byPackage, 15);
  show('self time by function', byFunction, 25);
}

/** What a request's time goes to, by the code the samples fall in (bench/README.md, "Where the time goes"). */
const AREAS: Array<[string, (fn: string, url: string) => boolean]> = [
  ['garbage collection', (fn) => fn === '(garbage collector)'],
  [
    'database (SQL, driver, Knex)',
    (fn, url) =>
      /runSqlite|runPostgres/.test(fn) ||
      /node_modules\/(knex|better-sqlite3|pg|pg-protocol|tarn)\/|\/src\/db\//.test(url),
  ],
  [
    'request validation',
    (_fn, url) => /express-openapi-validator|ajv|json-schema-traverse|fast-uri|validator-routes/.test(url),
  ],
  [
    'Express, router, middleware',
    (_fn, url) =>
      /node_modules\/(express|router|path-to-regexp|body-parser|qs|content-type|type-is|mime|send|cors|helmet|on-finished|vary|accepts|negotiator|parseurl)/.test(
        url,
      ),
  ],
  [
    'rendering (mappers, dates, JSON)',
    (fn, url) => fn === 'stringify' || /mapper|luxon|dates\.js|cost\.js|paging|i18n|translations/.test(url),
  ],
  ['metrics and logging', (_fn, url) => /prom-client|metrics\.js|request-log|pino|logger/.test(url)],
  [
    'Node HTTP and sockets',
    (fn, url) => url.startsWith('node:') || (!url && /writev|writeBuffer|writeUtf8String|\(program\)/.test(fn)),
  ],
  ['service: handlers, auth, caching', (_fn, url) => /\/dist\/src\//.test(url)],
];

function byArea(profile: Profile, hits: Map<number, number>): Map<string, number> {
  const areas = new Map<string, number>();
  for (const node of profile.nodes) {
    const count = hits.get(node.id) ?? 0;
    const { functionName, url } = node.callFrame;
    if (!count || functionName === '(idle)') continue;
    const area = AREAS.find(([, test]) => test(functionName, url))?.[0] ?? 'other';
    areas.set(area, (areas.get(area) ?? 0) + count);
  }
  return areas;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
