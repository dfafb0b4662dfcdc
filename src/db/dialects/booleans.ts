/** Boolean columns: `boolean` on PostgreSQL, an integer 0/1 on SQLite (which has no boolean type). */
import type { Executor } from '../types';
import { isPostgres } from '../dialect';

/**
 * SQL giving the boolean `column` as the text '1' or '0' on both engines (PostgreSQL's cast of a boolean would
 * give 'true'/'false'), for keys built in SQL that must read the same whichever engine made them.
 */
export function booleanAsText(db: Executor, column: string): string {
  return isPostgres(db) ? `case when ${column} then '1' else '0' end` : `cast(${column} as text)`;
}

/** A value for a boolean column: as it is on PostgreSQL, as 1 or 0 (its truth) on SQLite. */
export function storedBoolean(db: Executor, value: unknown): unknown {
  return isPostgres(db) ? value : value ? 1 : 0;
}
