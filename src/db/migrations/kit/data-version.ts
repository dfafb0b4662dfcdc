/**
 * The data version's triggers, for every migration that creates a table a read depends on (src/db/data-version.ts):
 * a table without one serves stale totals, search results and 304s after its writes.
 * test/db/data-version-triggers.test.ts fails on a table that has none and is not listed as one no read depends on.
 *
 * Frozen like the migrations that call it: a function here is never edited once a migration calling it has shipped,
 * or that migration would mean something else on a fresh database than it did on those it already ran on. A change
 * is a new function, called by a new migration.
 */
import type { Knex } from 'knex';
import { isPostgres } from '../../dialect';

/** The one-row table of the version (migration 009 creates it, and PostgreSQL's `bump_data_version()`). */
export const DATA_VERSION_TABLE = 'data_version';

/**
 * Bumps the data version on every insert, update and delete of `table`: on SQLite per row (one writer); on
 * PostgreSQL once per transaction, at commit, through `bump_data_version()`.
 */
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

/** Undoes `bumpDataVersionOn` (a migration's `down`). */
export async function stopBumpingDataVersionOn(knex: Knex, table: string): Promise<void> {
  if (isPostgres(knex)) {
    await knex.raw('drop trigger if exists ?? on ??', [`${table}_data_version`, table]);
    return;
  }
  for (const operation of ['insert', 'update', 'delete'])
    await knex.raw('drop trigger if exists ??', [`${table}_${operation}_data_version`]);
}
