/** The few places where SQLite and PostgreSQL differ, in one module (STYLE.md C5). */
import type { Knex } from 'knex';
import type { Executor } from './knex';

export function isPostgres(db: Executor): boolean {
  return db.client.config.client === 'pg';
}

/** Counts come back as strings (bigint) on PostgreSQL and numbers on SQLite. */
export function toNumber(value: unknown): number {
  return typeof value === 'number' ? value : Number(value ?? 0);
}

/** Booleans come back as 0/1 on SQLite and true/false on PostgreSQL. */
export function toBoolean(value: unknown): boolean {
  return value === true || value === 1 || value === '1';
}

/** Escapes LIKE wildcards so that user text matches literally (used with ESCAPE '\'). */
export function likeContains(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** `lower(column) LIKE %text%`, case-insensitive on both engines and literal for `%` and `_`. */
export function whereContains(query: Knex.QueryBuilder, column: string, text: string): Knex.QueryBuilder {
  return query.whereRaw(`lower(??) like ? escape '\\'`, [column, likeContains(text)]);
}

/** `column LIKE prefix%`, literal for `%` and `_`. */
export function whereStartsWith(query: Knex.QueryBuilder, column: string, prefix: string): Knex.QueryBuilder {
  return query.whereRaw(`?? like ? escape '\\'`, [column, `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`]);
}

/** The same for an SQL expression the code builds (never caller text), e.g. `coalesce(tr.value, p.title)`. */
export function whereExpressionContains(query: Knex.QueryBuilder, expression: string, text: string): Knex.QueryBuilder {
  return query.whereRaw(`lower(${expression}) like ? escape '\\'`, [likeContains(text)]);
}

/** Current instant as the `YYYY-MM-DD HH:MM:SS` UTC text we store on both engines. */
export function utcNow(): string {
  return new Date().toISOString().slice(0, 19).replace('T', ' ');
}

/** A unique-constraint violation (SQLite or PostgreSQL): the caller may retry after re-reading. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * Runs `work` in a transaction, again (up to `attempts` times) when it loses a race on a unique constraint:
 * the next attempt sees the winner's row and answers accordingly (e.g. `term_exists` or a `-2` slug).
 */
export async function transactionWithRetry<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>, attempts = 8): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(work);
    } catch (err) {
      if (attempt >= attempts || !isUniqueViolation(err)) throw err;
    }
  }
}
