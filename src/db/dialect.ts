/** The few places where SQLite and PostgreSQL differ, in one module (STYLE.md C5). */
import type { Knex } from 'knex';
import type { Executor } from './types';
import { now } from '../domain/clock';
import { groupedTransaction } from './group-commit';

export function isPostgres(db: Executor): boolean {
  return db.client.config.client === 'pg';
}

/** Counts come back as strings (bigint) on PostgreSQL and numbers on SQLite. */
export function toNumber(value: unknown): number {
  return typeof value === 'number' ? value : Number(value ?? 0);
}

/** The rows of a `raw` query: an array on SQLite, a result with `rows` on PostgreSQL. */
export function rawRows<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/** Booleans come back as 0/1 on SQLite and true/false on PostgreSQL. */
export function toBoolean(value: unknown): boolean {
  return value === true || value === 1 || value === '1';
}

/** `%text%` for LIKE … ESCAPE '\': user text matches literally, `%` and `_` included. */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** `column LIKE prefix%`, literal for `%` and `_`. */
export function whereStartsWith(query: Knex.QueryBuilder, column: string, prefix: string): Knex.QueryBuilder {
  return query.whereRaw(`?? like ? escape '\\'`, [column, `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`]);
}

/**
 * Keeps planner statistics fresh: SQLite re-analyses the tables that changed much since their statistics (its
 * advice for long-lived connections: `PRAGMA optimize` every few hours); PostgreSQL's autovacuum does it there.
 */
export async function refreshStatistics(db: Executor): Promise<void> {
  if (!isPostgres(db)) await db.raw('pragma optimize');
}

/** Current instant (by the service's clock) as the `YYYY-MM-DD HH:MM:SS` UTC text we store on both engines. */
export function utcNow(): string {
  return utcAt(now());
}

/** An instant as that stored text (times computed from `now()`: retention cut-offs, retry times). */
export function utcAt(instant: Date | number): string {
  return new Date(instant).toISOString().slice(0, 19).replace('T', ' ');
}

/** Stored UTC text as RFC 3339 (`2027-06-15T12:00:00Z`), for the wire. */
export function utcTextToIso(text: string): string {
  return `${text.replace(' ', 'T')}Z`;
}

/** Stored UTC text back to epoch milliseconds. */
export function utcTextToMs(text: string): number {
  return Date.parse(`${text.replace(' ', 'T')}Z`);
}

/** A unique-constraint violation (SQLite or PostgreSQL): the caller may retry after re-reading. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * Failures a fresh attempt resolves: a foreign-key violation (a linked record went away meanwhile; re-reading
 * answers it properly), a deadlock or a serialisation failure (PostgreSQL picked this transaction to abort).
 */
function isTransient(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '40P01' || code === '40001';
}

/**
 * The database could not do the work for waiting on others, and a later attempt may succeed: SQLite's write lock
 * held past the wait (db/sqlite-transaction.ts), PostgreSQL's `lock_timeout` reached, or a deadlock or a
 * serialisation failure that outlasted its retries.
 */
export function isDatabaseBusy(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  if (typeof code !== 'string') return false;
  return code.startsWith('SQLITE_BUSY') || code === '55P03' || code === '40001' || code === '40P01';
}

/**
 * Serialises, until the transaction ends, the writers that name the same `key` (say, creating a term of a given
 * name) across every node on PostgreSQL. SQLite has a single writer already.
 */
export async function lockFor(trx: Knex.Transaction, key: string): Promise<void> {
  if (isPostgres(trx)) await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [key]);
}

/**
 * Locks rows for the rest of the transaction on PostgreSQL, in id order. `FOR NO KEY UPDATE` does not conflict with
 * the key-share locks foreign-key checks take, so writers linking the same rows do not deadlock.
 */
export async function lockRows(trx: Knex.Transaction, table: string, ids: number[]): Promise<void> {
  if (isPostgres(trx) && ids.length) await trx(table).whereIn('id', ids).orderBy('id').forNoKeyUpdate().select('id');
}

/**
 * Runs `work` in a transaction (on SQLite grouped with concurrent writes: db/group-commit.ts), again (up to
 * `attempts` times) when it loses a race on a unique or foreign-key constraint: the next attempt sees the winner's
 * row, or the missing one, and answers accordingly.
 */
export async function transactionWithRetry<T>(
  db: Knex,
  work: (trx: Knex.Transaction) => Promise<T>,
  attempts = 8,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await (isPostgres(db) ? db.transaction(work) : groupedTransaction(db, work));
    } catch (err) {
      if (attempt >= attempts || !(isUniqueViolation(err) || isTransient(err))) throw err;
    }
  }
}
