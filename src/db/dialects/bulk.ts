/** Whole tables read and written at once (the portable dump), where the engines differ. */
import type { Knex } from 'knex';
import type { Executor } from '../types';
import { isPostgres } from '../dialect';

/**
 * The `??` of a text column to order by byte by byte, so both engines list rows in the same order: SQLite compares
 * text as bytes already (its BINARY collation); PostgreSQL would follow the database's locale unless told "C".
 */
export function textInByteOrder(db: Executor): string {
  return isPostgres(db) ? '?? collate "C"' : '??';
}

/**
 * Makes the transaction read one consistent snapshot throughout, and write nothing. PostgreSQL's default (read
 * committed) sees each statement's own snapshot; SQLite's read transaction is a snapshot already.
 */
export async function readOneSnapshot(trx: Knex.Transaction): Promise<void> {
  if (isPostgres(trx)) await trx.raw('set transaction isolation level repeatable read, read only');
}

/**
 * Checks foreign keys at commit for the rest of the transaction, so rows pointing at rows of the same table may
 * come first: SQLite's `defer_foreign_keys`. Nothing on PostgreSQL (its foreign keys are not declared deferrable).
 */
export async function deferForeignKeys(trx: Knex.Transaction): Promise<void> {
  if (!isPostgres(trx)) await trx.raw('pragma defer_foreign_keys = on');
}

/**
 * At most `wanted` rows per multi-row insert, within what the engine takes: Knex writes one on SQLite as a compound
 * SELECT of at most 500 terms; PostgreSQL has no such limit (65 535 bound parameters, which the caller keeps to).
 */
export function rowsPerInsert(db: Executor, wanted: number): number {
  return isPostgres(db) ? wanted : Math.min(wanted, 500);
}
