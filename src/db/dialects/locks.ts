/**
 * Row locks that last until the transaction ends, taken on PostgreSQL only: SQLite has one writer at a time (a
 * transaction that writes holds the whole database), so there they would add nothing and it has no syntax for them.
 */
import type { Knex } from 'knex';
import type { Executor } from '../types';
import { isPostgres } from '../dialect';

/** `FOR UPDATE`: the rows read are the rows this transaction writes; other writers of them wait. */
export function forUpdate(db: Executor, query: Knex.QueryBuilder): Knex.QueryBuilder {
  return isPostgres(db) ? query.forUpdate() : query;
}

/**
 * `FOR SHARE` inside a transaction: the rows read stay as read (not deleted or changed) until it commits. Outside a
 * transaction the lock would end with the statement, so none is asked for.
 */
export function forShare(db: Executor, query: Knex.QueryBuilder): Knex.QueryBuilder {
  const inTransaction = 'isTransaction' in db && db.isTransaction;
  return isPostgres(db) && inTransaction ? query.forShare() : query;
}

/**
 * The clause ending a raw `SELECT` that claims rows of `alias` for this transaction, passing over rows another
 * transaction has claimed (`FOR UPDATE … SKIP LOCKED`), so nodes claiming at once never take the same row; empty on
 * SQLite, whose one writer claims alone.
 */
export function claimSkippingLocked(db: Executor, alias: string): string {
  return isPostgres(db) ? `for update of ${alias} skip locked` : '';
}
