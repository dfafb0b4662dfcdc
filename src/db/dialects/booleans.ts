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
