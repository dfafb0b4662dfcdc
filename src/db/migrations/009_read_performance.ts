import type { Knex } from 'knex';
import { isPostgres } from '../dialect';
import { bumpDataVersionOn, DATA_VERSION_TABLE, stopBumpingDataVersionOn } from './kit/data-version';

/**
 * Reads at a million events: a data version every write bumps (exact counts memoised by it, ETags derived from it),
 * a spatial index of venue coordinates on SQLite (R*Tree, kept by triggers in the writing transaction; PostgreSQL
 * answers the same bounding box from the (geo_lat, geo_lng) btree), indexes in the order the lists read, and fresh
 * planner statistics.
 */
export async function up(knex: Knex): Promise<void> {
  await createDataVersion(knex);
  if (!isPostgres(knex)) await createVenueGeoIndex(knex);
  await knex.schema.alterTable('posts', (t) => {
    // venue and organizer lists: one type, a few statuses, newest first
    t.index(['type', 'status', 'date_utc', 'id'], 'posts_list');
  });
  await knex.schema.alterTable('events', (t) => {
    // events of given venues in a window, in start order, without visiting the rows
    t.index(['venue_id', 'status', 'start_utc', 'end_utc', 'hide_from_listings'], 'events_venue_list');
  });
  await knex.raw('analyze');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => t.dropIndex([], 'events_venue_list'));
  await knex.schema.alterTable('posts', (t) => t.dropIndex([], 'posts_list'));
  if (!isPostgres(knex)) {
    for (const op of ['insert', 'update', 'delete']) await knex.raw('drop trigger if exists ??', [`venues_geo_${op}`]);
    await knex.raw('drop table if exists venues_geo');
  }
  await dropDataVersion(knex);
}

/** One box per geolocated venue (a point: min = max); R*Tree rounds outwards, callers check the exact distance. */
async function createVenueGeoIndex(knex: Knex): Promise<void> {
  await knex.raw('create virtual table venues_geo using rtree(id, min_lat, max_lat, min_lng, max_lng)');
  await knex.raw(`insert into venues_geo select post_id, geo_lat, geo_lat, geo_lng, geo_lng from venues
    where geo_lat is not null and geo_lng is not null`);
  const put = `insert or replace into venues_geo select new.post_id, new.geo_lat, new.geo_lat, new.geo_lng, new.geo_lng
    where new.geo_lat is not null and new.geo_lng is not null;`;
  await knex.raw(`create trigger venues_geo_insert after insert on venues begin ${put} end`);
  await knex.raw(`create trigger venues_geo_update after update of post_id, geo_lat, geo_lng on venues begin
    delete from venues_geo where id = old.post_id; ${put} end`);
  await knex.raw(
    'create trigger venues_geo_delete after delete on venues begin delete from venues_geo where id = old.post_id; end',
  );
}

/** The tables whose rows change what a read answers (src/db/data-version.ts reads the version). */
const VERSIONED_TABLES = [
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

async function createDataVersion(knex: Knex): Promise<void> {
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

async function dropDataVersion(knex: Knex): Promise<void> {
  for (const table of VERSIONED_TABLES) await stopBumpingDataVersionOn(knex, table);
  if (isPostgres(knex)) await knex.raw('drop function if exists bump_data_version()');
  await knex.schema.dropTableIfExists(DATA_VERSION_TABLE);
}
