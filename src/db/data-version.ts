/**
 * A version of the data that every committed write moves on, kept in the database so every node sees the same one:
 * triggers on each table bump it in the writing transaction (SQLite: per row, it has one writer; PostgreSQL: once
 * per transaction, at commit, so concurrent writers hold the version row only while committing). Anything derived
 * from the data and keyed by this version (a count, an ETag) can never outlive an acknowledged write.
 */
import type { Knex } from 'knex';
import type { Executor } from './knex';
import { isPostgres, toNumber } from './dialect';
import { statement } from './statements';

export const DATA_VERSION_TABLE = 'data_version';

/** The tables whose rows change what a read answers (a migration adding one calls `bumpDataVersionOn`). */
export const VERSIONED_TABLES = [
  'users',
  'posts',
  'terms',
  'term_relationships',
  'images',
  'venues',
  'organizers',
  'events',
  'event_organizers',
  'post_translations',
  'term_translations',
  'event_series',
  'series_occurrences',
  'search_docs',
];

export async function createDataVersion(knex: Knex): Promise<void> {
  await knex.schema.createTable(DATA_VERSION_TABLE, (t) => {
    t.integer('id').primary();
    t.bigInteger('version').notNullable();
  });
  await knex(DATA_VERSION_TABLE).insert({ id: 1, version: 1 });
  if (isPostgres(knex)) {
    // once per transaction: the flag is transaction-local and the trigger runs at commit (deferred)
    await knex.raw(`create function bump_data_version() returns trigger language plpgsql as $$
      begin
        if coalesce(current_setting('calendar.data_version_bumped', true), '') <> 'on' then
          perform set_config('calendar.data_version_bumped', 'on', true);
          update ${DATA_VERSION_TABLE} set version = version + 1 where id = 1;
        end if;
        return null;
      end $$`);
  }
  for (const table of VERSIONED_TABLES) await bumpDataVersionOn(knex, table);
}

export async function bumpDataVersionOn(knex: Knex, table: string): Promise<void> {
  if (isPostgres(knex)) {
    await knex.raw(
      `create constraint trigger ?? after insert or update or delete on ?? deferrable initially deferred
      for each row execute function bump_data_version()`,
      [`${table}_data_version`, table],
    );
    return;
  }
  for (const operation of ['insert', 'update', 'delete']) {
    await knex.raw(
      `create trigger ?? after ${operation} on ?? begin
      update ${DATA_VERSION_TABLE} set version = version + 1 where id = 1; end`,
      [`${table}_${operation}_data_version`, table],
    );
  }
}

export async function dropDataVersion(knex: Knex): Promise<void> {
  for (const table of VERSIONED_TABLES) {
    if (isPostgres(knex)) await knex.raw('drop trigger if exists ?? on ??', [`${table}_data_version`, table]);
    else
      for (const op of ['insert', 'update', 'delete'])
        await knex.raw('drop trigger if exists ??', [`${table}_${op}_data_version`]);
  }
  if (isPostgres(knex)) await knex.raw('drop function if exists bump_data_version()');
  await knex.schema.dropTableIfExists(DATA_VERSION_TABLE);
}

const VERSION = statement((db) => db(DATA_VERSION_TABLE).where('id', 1).select('version'));

/** The current version (outside a transaction: the last committed one). */
export async function dataVersion(db: Executor): Promise<number> {
  const [row] = await VERSION.all<{ version: unknown }>(db);
  return toNumber(row.version);
}
