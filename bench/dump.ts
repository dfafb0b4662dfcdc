/**
 * `npm run bench:dump`: how long the portable dump takes at scale and whether memory stays flat. Seeds N events
 * (bench/seed.ts, default 100 000) into a fresh SQLite file, exports it, imports the dump into a fresh PostgreSQL
 * schema, exports that, and imports it into a fresh SQLite file: each step timed, with the peak heap and RSS seen
 * during it (sampled every 50 ms). The two dumps must be the same bytes. DUMP_EVENTS, BENCH_DATABASE_URL.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knex from 'knex';
import { createDb } from '../src/db/knex';
import type { Db } from '../src/db/types';
import { migrate } from '../src/db/migrate';
import { exportToFile } from '../src/ops/backup';
import { importDump } from '../src/ops/dump';
import { terminalProgress } from '../src/ops/progress';
import { seed } from './seed';

const EVENTS = Number(process.env.DUMP_EVENTS ?? 100_000);
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const MiB = 1024 * 1024;

interface Step {
  step: string;
  seconds: number;
  rows: number;
  peakHeapMiB: number;
  peakRssMiB: number;
  fileMiB?: number;
}

async function measure(
  step: string,
  work: () => Promise<Record<string, { rows: number }>>,
  file?: string,
): Promise<Step> {
  global.gc?.();
  let peakHeap = process.memoryUsage().heapUsed;
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  }, 50);
  const started = performance.now();
  try {
    const tables = await work();
    return {
      step,
      seconds: Math.round(performance.now() - started) / 1000,
      rows: Object.values(tables).reduce((sum, t) => sum + t.rows, 0),
      peakHeapMiB: Math.round(peakHeap / MiB),
      peakRssMiB: Math.round(peakRss / MiB),
      fileMiB: file ? Math.round(fs.statSync(file).size / MiB) : undefined,
    };
  } finally {
    clearInterval(sampler);
  }
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-dump-'));
  const schema = `bench_dump_${randomBytes(4).toString('hex')}`;
  const admin = knex({ client: 'pg', connection: PG_URL, pool: { min: 0, max: 1 } });
  await admin.raw('create schema ??', [schema]);
  const dbs: Db[] = [];
  const open = (url: string, options = {}) => {
    const db = createDb(url, options);
    dbs.push(db);
    return db;
  };
  try {
    const sqlite = open(`sqlite:${path.join(dir, 'source.sqlite')}`);
    process.stderr.write(`seeding ${EVENTS} events into SQLite…\n`);
    await seed(sqlite, { events: EVENTS });
    const pg = open(PG_URL, { schema });
    await migrate(pg);
    const back = open(`sqlite:${path.join(dir, 'back.sqlite')}`);
    await migrate(back);
    const files = [path.join(dir, 'from-sqlite.jsonl'), path.join(dir, 'from-postgres.jsonl')];
    const steps: Step[] = [];
    const heapBefore = Math.round(process.memoryUsage().heapUsed / MiB);
    steps.push(
      await measure('export SQLite', () => exportToFile(sqlite, files[0], { progress: terminalProgress() }), files[0]),
    );
    steps.push(
      await measure('import into PostgreSQL', () =>
        importDump(pg, fs.createReadStream(files[0]), { progress: terminalProgress() }),
      ),
    );
    steps.push(
      await measure('export PostgreSQL', () => exportToFile(pg, files[1], { progress: terminalProgress() }), files[1]),
    );
    steps.push(
      await measure('import into SQLite', () =>
        importDump(back, fs.createReadStream(files[1]), { progress: terminalProgress() }),
      ),
    );
    const same = fs.readFileSync(files[0]).equals(fs.readFileSync(files[1]));
    console.table(steps);
    console.log(JSON.stringify({ events: EVENTS, heapBeforeMiB: heapBefore, dumpsIdentical: same, steps }));
    if (!same) process.exitCode = 1;
  } finally {
    for (const db of dbs) await db.destroy();
    await admin.raw('drop schema if exists ?? cascade', [schema]);
    await admin.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
