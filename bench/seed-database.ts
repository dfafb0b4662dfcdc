/**
 * `npx tsx bench/seed-database.ts DATABASE_URL EVENTS [series=0]`: seeds a database that stays (for bench/profile.ts)
 * with the bench's data, and prints the fixture (what the scenarios use: ids, words, the geolocation centre) as JSON.
 */
import { createDb } from '../src/db/knex';
import { seed } from './seed';

async function main(): Promise<void> {
  const [url, events, series] = process.argv.slice(2);
  if (!url || !events) throw new Error('usage: bench/seed-database.ts DATABASE_URL EVENTS [series=0]');
  const db = createDb(url);
  try {
    const fixture = await seed(db, {
      events: Number(events),
      analyze: true,
      progress: false,
      series: series !== 'series=0',
    });
    console.log(JSON.stringify(fixture));
  } finally {
    await db.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
