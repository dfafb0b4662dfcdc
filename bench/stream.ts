/**
 * `npx tsx bench/stream.ts` (or `npm run bench:stream`): the change stream (`GET /changes/stream`, D139) with the
 * built server as child processes, on SQLite and PostgreSQL (`BENCH_ENGINES`). Per engine, on a fresh database:
 * 1. delivery latency: two servers on the database, a stream on each; `BENCH_STREAM_WRITES` (200) writes on the
 *    first, one at a time after a random pause (0–250 ms); per write the time from its answer to its event on the
 *    same node and on the other node (p50, p99, max);
 * 2. limits: a server with `STREAM_MAX_PER_CALLER=3` and `STREAM_MAX_OPEN=5`: the 4th stream of one caller and the
 *    6th of the node are refused 429 with `Retry-After`;
 * 3. idle cost: a server allowed `BENCH_STREAM_IDLE` (1 000) streams: its resident set with none open and with all
 *    open and idle (target: at most 100 MB more), and the CPU time it uses while they sit idle for 10 s (and, to
 *    compare, in 10 s with none).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import knex from 'knex';
import { createDb } from '../src/db/knex';
import { openStream, type SseStream } from '../test/support/sse';
import { ADMIN_AUTH, seed } from './seed';

type Engine = 'sqlite' | 'postgres';

const ROOT = path.resolve(__dirname, '..');
const NS = '/calendar/events/v1';
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',') as Engine[];
const WRITES = Number(process.env.BENCH_STREAM_WRITES ?? 200);
const IDLE = Number(process.env.BENCH_STREAM_IDLE ?? 1000);
const IDLE_SECONDS = 10;
const AUTH = ADMIN_AUTH;
const children = new Set<ChildProcess>();

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

interface Server {
  child: ChildProcess;
  base: string;
  stop(): Promise<void>;
}

async function startServer(databaseUrl: string, env: Record<string, string> = {}): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/src/server.js')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.add(child);
  const base = `http://127.0.0.1:${port}${NS}`;
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    children.delete(child);
  };
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) return { child, base, stop };
    } catch {
      /* not listening yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the server did not become ready');
}

/** A temporary SQLite file, or a new PostgreSQL schema selected through the connection's search_path. */
async function freshDatabase(engine: Engine): Promise<{ url: string; drop(): Promise<void> }> {
  if (engine === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'calendar-bench-stream-'));
    return {
      url: `sqlite:${path.join(dir, 'calendar.sqlite')}`,
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `bench_stream_${randomBytes(4).toString('hex')}`;
  const admin = knex({ client: 'pg', connection: PG_URL, pool: { min: 0, max: 1 } });
  await admin.raw('create schema ??', [schema]);
  return {
    url: `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    async drop() {
      await admin.raw('drop schema if exists ?? cascade', [schema]);
      await admin.destroy();
    },
  };
}

function rssMiB(pid: number): number {
  const kib = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kib) / 1024;
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim() || 100);

/** User plus system CPU time of a process so far, in milliseconds. */
function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime
  return (ticks * 1000) / CLOCK_TICKS;
}

/** The CPU time `pid` uses in IDLE_SECONDS, sampling something every 250 ms meanwhile. */
async function cpuOver(pid: number, sample = () => {}): Promise<{ cpu: number; seconds: number }> {
  const before = cpuMs(pid);
  const started = performance.now();
  while (performance.now() - started < IDLE_SECONDS * 1000) {
    await sleep(250);
    sample();
  }
  return { cpu: cpuMs(pid) - before, seconds: (performance.now() - started) / 1000 };
}

function stats(xs: number[]): { p50: number; p99: number; max: number } {
  const sorted = [...xs].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ms = (x: number) => `${x.toFixed(1)} ms`;

async function latency(url: string): Promise<void> {
  const a = await startServer(url);
  const b = await startServer(url);
  try {
    const here = await openStream(`${a.base}/changes/stream`, { Authorization: AUTH });
    const there = await openStream(`${b.base}/changes/stream`, { Authorization: AUTH });
    if (here.status !== 200 || there.status !== 200) throw new Error(`streams refused: ${here.status} ${there.status}`);
    const local: number[] = [];
    const remote: number[] = [];
    for (let i = 0; i < WRITES + 5; i++) {
      // a random pause, so that writes do not fall in step with SQLite's polling of the other node
      await sleep(Math.random() * 250);
      const res = await fetch(`${a.base}/tags`, {
        method: 'POST',
        headers: { Authorization: AUTH, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: `Stream bench ${i} ${randomBytes(3).toString('hex')}` }),
      });
      const acknowledged = performance.now();
      if (res.status !== 201) throw new Error(`write ${i}: ${res.status} ${await res.text()}`);
      const { id } = (await res.json()) as { id: number };
      const [x, y] = await Promise.all([here.next(10_000), there.next(10_000)]);
      for (const e of [x, y]) if (JSON.parse(e.data).id !== id) throw new Error(`write ${i}: another event`);
      if (i < 5) continue; // warm-up: validators compiled, credentials checked once
      local.push(x.at - acknowledged);
      remote.push(y.at - acknowledged);
    }
    here.close();
    there.close();
    const [l, r] = [stats(local), stats(remote)];
    console.log(`  latency from a write's answer to its event, ${WRITES} writes (targets: 100 ms here, 1 s elsewhere)`);
    console.log(`    same node:    p50 ${ms(l.p50)}  p99 ${ms(l.p99)}  max ${ms(l.max)}`);
    console.log(`    another node: p50 ${ms(r.p50)}  p99 ${ms(r.p99)}  max ${ms(r.max)}`);
  } finally {
    await a.stop();
    await b.stop();
  }
}

async function limits(url: string): Promise<void> {
  const server = await startServer(url, { STREAM_MAX_PER_CALLER: '3', STREAM_MAX_OPEN: '5' });
  const open: SseStream[] = [];
  const stream = async (auth?: string) => {
    const s = await openStream(`${server.base}/changes/stream`, auth ? { Authorization: auth } : {});
    open.push(s);
    return s;
  };
  try {
    const mine = [await stream(AUTH), await stream(AUTH), await stream(AUTH)];
    const fourth = await stream(AUTH);
    const others = [await stream(), await stream()];
    const sixth = await stream();
    const accepted = [...mine, ...others].filter((s) => s.status === 200).length;
    const refusal = (s: SseStream) =>
      `${s.status} Retry-After ${s.headers.get('retry-after')} ${(s.body as { code?: string })?.code}`;
    console.log(`  limits (3 per caller, 5 per node): ${accepted} of 5 streams accepted;`);
    console.log(`    the caller's 4th: ${refusal(fourth)}; the node's 6th (another caller): ${refusal(sixth)}`);
    if (accepted !== 5 || fourth.status !== 429 || sixth.status !== 429) process.exitCode = 1;
  } finally {
    for (const s of open) s.close();
    await server.stop();
  }
}

async function idle(url: string): Promise<void> {
  const limit = String(Math.max(IDLE, 5));
  const server = await startServer(url, { STREAM_MAX_OPEN: limit, STREAM_MAX_PER_CALLER: limit });
  const pid = server.child.pid as number;
  const open: SseStream[] = [];
  try {
    // the code paths loaded and the caches warm before the first figure: one stream opened, fed and closed
    const warm = await openStream(`${server.base}/changes/stream`);
    await fetch(`${server.base}/changes`);
    warm.close();
    await sleep(2000);
    const none = rssMiB(pid);
    const idleCpu = await cpuOver(pid); // what the server spends with no stream: its own timers
    for (let i = 0; i < IDLE; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, IDLE - i) }, () => openStream(`${server.base}/changes/stream`)),
      );
      open.push(...batch);
    }
    const refused = open.filter((s) => s.status !== 200).length;
    await sleep(2000);
    let largest = rssMiB(pid);
    const { cpu, seconds } = await cpuOver(pid, () => {
      largest = Math.max(largest, rssMiB(pid));
    });
    const extra = largest - none;
    console.log(
      `  RSS with no stream ${none.toFixed(0)} MiB; ` +
        `with ${IDLE - refused} idle streams at most ${largest.toFixed(0)} MiB ` +
        `(+${extra.toFixed(1)} MiB = ${((extra * 2 ** 20) / 1e6).toFixed(1)} MB, target ≤ 100 MB)` +
        (refused ? `; ${refused} refused` : ''),
    );
    console.log(
      `  CPU while they sat idle ${seconds.toFixed(1)} s: ${cpu.toFixed(0)} ms ` +
        `(${(cpu / seconds / 10).toFixed(2)} % of a core; heartbeats every 15 s); ` +
        `with no stream ${idleCpu.cpu.toFixed(0)} ms in ${idleCpu.seconds.toFixed(1)} s`,
    );
    if (refused || extra * 2 ** 20 > 100e6) process.exitCode = 1;
  } finally {
    for (const s of open) s.close();
    await server.stop();
  }
}

async function main(): Promise<void> {
  // BENCH_BUILD=0: the server is built already
  if (process.env.BENCH_BUILD !== '0') console.log('building the server (tsc -p tsconfig.build.json)');
  if (
    process.env.BENCH_BUILD !== '0' &&
    spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' }).status !== 0
  ) {
    throw new Error('the build failed');
  }
  console.log(
    `${new Date().toISOString()}, load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  for (const engine of ENGINES) {
    const database = await freshDatabase(engine);
    try {
      const db = createDb(database.url);
      await seed(db, { events: 100, progress: false }).finally(() => db.destroy());
      console.log(`${engine}:`);
      await latency(database.url);
      await limits(database.url);
      await idle(database.url);
    } finally {
      for (const child of children) child.kill('SIGTERM');
      await database.drop();
    }
  }
  console.log(
    `done, load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
}

process.on('SIGINT', () => {
  for (const child of children) child.kill('SIGTERM');
  process.exit(130);
});

main()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const child of children) child.kill('SIGTERM');
    process.exit();
  });
