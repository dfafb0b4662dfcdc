/**
 * `npx tsx bench/cold-queries.ts DATABASE_URL FIXTURE.json [RUNS=15] [scenario,…]`: times the list scenarios of the bench as
 * cold queries, in process (filters, page of 15 and exact total, no HTTP, no rendering), on a seeded database
 * (bench/seed-database.ts prints the fixture). Every run asks a window never asked before (its end moves by a
 * random number of seconds), so no memoised total applies; a search's match set is memoised per data version (D110),
 * so the first run of a word pays for finding it and the later ones do not. Prints, per scenario, the wall time and
 * this process's CPU time (on SQLite the query's own work, less sensitive to other load on the machine).
 */
import fs from 'node:fs';
import { createDb } from '../src/db/knex';
import { loadConfig } from '../src/config';
import { eventFilters, type EventListQuery } from '../src/resources/events/list';
import { listEvents } from '../src/resources/events/repository';
import type { Fixture } from './seed';

const SCENARIOS: Array<[string, (f: Fixture, i: number) => EventListQuery]> = [
  ['list', () => ({})],
  ['search', (f) => ({ search: f.searchWord })],
  ['categories+search', (f) => ({ categories: [f.categoryId], search: f.searchWord })],
  ['search rare', (f) => ({ search: f.rareWord })],
  ['geolocation', (f) => ({ geoloc_lat: f.geoCenter.lat, geoloc_lng: f.geoCenter.lng, geoloc_radius: 25 })],
  ['venue', (f, i) => ({ venue: [f.venueIds[(i * 7919) % f.venueIds.length]] })],
  ['organizer', (f, i) => ({ organizer: [f.organizerIds[(i * 7919) % f.organizerIds.length]] })],
];

const DAY_MS = 86_400_000;
const middle = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (value: number) => value.toFixed(1).padStart(7);

async function main(): Promise<void> {
  const [url, fixtureFile, runs = '15', only] = process.argv.slice(2);
  if (!url || !fixtureFile) throw new Error('usage: bench/cold.ts DATABASE_URL FIXTURE.json [RUNS] [scenario,…]');
  const fixture = JSON.parse(fs.readFileSync(fixtureFile, 'utf8')) as Fixture;
  const db = createDb(url);
  const config = loadConfig({ SITE_TIMEZONE: 'UTC' });
  try {
    await db.raw('select 1');
    for (const [name, query] of SCENARIOS) {
      if (only && !only.split(',').includes(name)) continue;
      const wall: number[] = [];
      const cpu: number[] = [];
      let total = 0;
      for (let i = 0; i < Number(runs); i++) {
        const end = new Date(Date.now() + 730 * DAY_MS + Math.floor(Math.random() * 1e6) * 1000);
        const q = {
          ...query(fixture, i),
          end_date: end.toISOString().slice(0, 19).replace('T', ' '),
          strict_dates: '1',
        };
        const started = performance.now();
        const used = process.cpuUsage();
        const filters = await eventFilters(db, config, undefined, q, 'en');
        total = (await listEvents(db, filters, 15, 0)).total;
        const { user, system } = process.cpuUsage(used);
        wall.push(performance.now() - started);
        cpu.push((user + system) / 1000);
      }
      console.log(
        `${name.padEnd(18)} wall p50 ${ms(middle(wall))} max ${ms(Math.max(...wall))} ms | ` +
          `cpu p50 ${ms(middle(cpu))} max ${ms(Math.max(...cpu))} ms | total ${total}`,
      );
    }
  } finally {
    await db.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
