/** Runs the migrations at start-up: idempotent, the same list on both engines, one node at a time on PostgreSQL. */
import type { Knex } from 'knex';
import type { Db } from './types';
import { isPostgres } from './dialect';
import * as initial from './migrations/001_initial';
import * as events from './migrations/002_events';
import * as translations from './migrations/003_translations';
import * as termCounts from './migrations/004_term_counts';
import * as search from './migrations/005_search';
import * as series from './migrations/006_series';
import * as integrations from './migrations/007_integrations';
import * as teams from './migrations/008_teams';
import * as readPerformance from './migrations/009_read_performance';
import * as ical from './migrations/010_ical';
import * as idempotentCreates from './migrations/011_idempotent_creates';
import * as appPasswordLookup from './migrations/012_app_password_lookup';
import * as serviceSecret from './migrations/013_service_secret';
import * as stamps from './migrations/014_stamps';
import * as listIds from './migrations/015_list_ids';
import * as throttleExpiry from './migrations/016_throttle_expiry';
import * as searchLookup from './migrations/017_search_lookup';

type Migration = { up(knex: Knex): Promise<void>; down(knex: Knex): Promise<void> };

/** Ordered, imported, extension-less: the same names under Jest, tsx and compiled JS (STYLE.md C5). */
const MIGRATIONS: ReadonlyArray<[string, Migration]> = [
  ['001_initial', initial],
  ['002_events', events],
  ['003_translations', translations],
  ['004_term_counts', termCounts],
  ['005_search', search],
  ['006_series', series],
  ['007_integrations', integrations],
  ['008_teams', teams],
  ['009_read_performance', readPerformance],
  ['010_ical', ical],
  ['011_idempotent_creates', idempotentCreates],
  ['012_app_password_lookup', appPasswordLookup],
  ['013_service_secret', serviceSecret],
  ['014_stamps', stamps],
  ['015_list_ids', listIds],
  ['016_throttle_expiry', throttleExpiry],
  ['017_search_lookup', searchLookup],
];

const source: Knex.MigrationSource<[string, Migration]> = {
  getMigrations: async () => [...MIGRATIONS],
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration,
};

const MIGRATION_LOCK_KEY = 4_242_001; // pg_advisory lock id: several nodes starting at once migrate one by one

export async function migrate(db: Db): Promise<void> {
  const config = { migrationSource: source };
  if (!isPostgres(db)) {
    await db.migrate.latest(config);
    return;
  }
  await db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?)', [MIGRATION_LOCK_KEY]);
    await db.migrate.latest(config);
  });
}

/** Whether every known migration has been applied (for /readyz). */
export async function isMigrated(db: Db): Promise<boolean> {
  const [, pending] = (await db.migrate.list({ migrationSource: source })) as [unknown[], unknown[]];
  return pending.length === 0;
}

/** The migrations this build has, in order (a dump names those it was written under). */
export const MIGRATION_NAMES: readonly string[] = MIGRATIONS.map(([name]) => name);

/** Names of the migrations applied to the database, in the order they ran. */
export async function appliedMigrations(db: Knex | Knex.Transaction): Promise<string[]> {
  return (await db('knex_migrations').orderBy('id').select('name')).map((row: { name: string }) => row.name);
}
