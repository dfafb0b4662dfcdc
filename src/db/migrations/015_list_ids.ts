import type { Knex } from 'knex';
import { isPostgres } from '../dialect';

/**
 * PostgreSQL: the list index carries the event ids (`include (post_id)`), so that a list filtered by a large set of
 * ids (a common search word's matches, D110) counts the date window from the index alone, without visiting each
 * event's row. SQLite's indexes carry the row id already: nothing to do there.
 */
export async function up(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) return;
  await knex.raw(`create index events_list_ids on events
    (hide_from_listings, status, start_utc, end_utc) include (post_id)`);
  await knex.raw('drop index events_list');
  await knex.raw('alter index events_list_ids rename to events_list');
  await knex.raw('analyze events');
}

export async function down(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) return;
  await knex.raw('drop index events_list');
  await knex.raw('create index events_list on events (hide_from_listings, status, start_utc, end_utc)');
}
