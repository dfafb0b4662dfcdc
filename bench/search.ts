/**
 * `npx tsx bench/search.ts`: times `GET /events?search=…` (filters, count and page, in process, no HTTP) for a rare
 * and a common term, short terms and a miss, on seeded databases. `BENCH_SIZES` (default 100000), `BENCH_ENGINES`
 * (default sqlite,postgres), `BENCH_DATABASE_URL` as for `npm run bench`. Prints one line per engine, size and search.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import knex from 'knex';
import { createDb } from '../src/db/knex';
import type { Db } from '../src/db/types';
import { loadConfig } from '../src/config';
import { eventFilters } from '../src/resources/events/list';
import { listEvents } from '../src/resources/events/repository';
import { syncSearch } from '../src/search/documents';
import { seed } from './seed';

const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',');
const SIZES = (process.env.BENCH_SIZES ?? '100000').split(',').map(Number);
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const RUNS = 20;

/** [label, search]: 'jazz' is in ~5 % of titles; ten events get a rare word; 'ja' and '祭' take the short path. */
const SEARCHES: Array<[string, string]> = [
  ['rare', 'Zeldzaam'],
  ['rare, accents', 'östfest'],
  ['common (~5 %)', 'jazz'],
  ['common, 2 words', 'summer jazz'],
  ['short (2 chars)', 'ja'],
  ['short, rare (1 char)', '祭'],
  ['miss', 'qwertyuiop'],
];

async function database(engine: string): Promise<{ db: Db; drop(): Promise<void> }> {
  if (engine === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'search-bench-'));
    const db = createDb(`sqlite:${path.join(dir, 'bench.sqlite')}`);
    return {
      db,
      drop: async () => {
        await db.destroy();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = `search_bench_${randomBytes(4).toString('hex')}`;
  const admin = knex({ client: 'pg', connection: PG_URL, pool: { min: 0, max: 1 } });
  await admin.raw('create schema ??', [schema]);
  const db = createDb(PG_URL, { schema });
  return {
    db,
    drop: async () => {
      await db.destroy();
      await admin.raw('drop schema ?? cascade', [schema]);
      await admin.destroy();
    },
  };
}

async function time(db: Db, search: string): Promise<{ ms: number; total: number }> {
  const config = loadConfig({});
  const once = async () => {
    const filters = await eventFilters(db, config, undefined, { search }, 'en');
    return listEvents(db, filters, 15, 0);
  };
  const { total } = await once(); // warm
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = process.hrtime.bigint();
    await once();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(RUNS / 2)], total };
}

async function main(): Promise<void> {
  for (const engine of ENGINES) {
    for (const size of SIZES) {
      const { db, drop } = await database(engine);
      try {
        const fixture = await seed(db, { events: size, progress: false });
        const rare = fixture.eventIds.slice(0, 10);
        await db('posts').whereIn('id', rare).update({ title: 'Zeldzaam Östfest 東京の夏祭り' });
        await syncSearch(db, 'posts', rare);
        console.log(`${engine} ${size} events: seeded and indexed in ${fixture.seedSeconds.toFixed(0)} s`);
        for (const [label, search] of SEARCHES) {
          const { ms, total } = await time(db, search);
          console.log(`${engine}\t${size}\t${label}\t"${search}"\t${total} found\tp50 ${ms.toFixed(1)} ms`);
        }
      } finally {
        await drop();
      }
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
