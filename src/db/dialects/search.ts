/**
 * The search predicate's SQL where the engines differ (the rule itself is src/search/predicate.ts): what narrows
 * the candidates, and how a set of matching ids is gathered and applied to a list.
 */
import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import type { Executor } from '../types';
import { isPostgres } from '../dialect';

/**
 * Whether an FTS5 trigram index (`search_fts`, SQLite) narrows the candidates before `LIKE` checks them. On
 * PostgreSQL the `pg_trgm` index serves the `LIKE`s themselves.
 */
export function narrowsWithFts(db: Executor): boolean {
  return !isPostgres(db);
}

/** SQL gathering the values of `column` (integers, or an expression of them) into one comma-separated text. */
export function idsAsText(db: Executor, column: string): string {
  return isPostgres(db) ? `string_agg(${column}::text, ',')` : `group_concat(${column})`;
}

/**
 * SQLite: the search documents as the candidates the FTS5 index finds are looked up, through `search_docs_lookup`
 * (kind, language, original, record by id), not their rows, which hold the text of ten fields: 50 ms instead of 130
 * for a common word at a million events. Without statistics the planner would take the rows.
 */
export function documentsByCandidate(db: Executor): Knex.Raw {
  return db.raw('search_docs as d indexed by search_docs_lookup');
}

/**
 * Restricts `query` to the rows whose `column` is not among the values of `fewColumn` that `few` selects (few rows:
 * the protected posts, the records translated into a language). SQLite builds that list once per statement and
 * tests each row in memory, where a look-up per row costs one index probe per candidate (50 000 for a common word);
 * PostgreSQL gets `not exists`, which its planner turns into an anti-join whatever the list's size.
 */
export function whereNotAmong(
  db: Executor,
  query: Knex.QueryBuilder,
  column: string,
  few: Knex.QueryBuilder,
  fewColumn: string,
): Knex.QueryBuilder {
  return isPostgres(db)
    ? query.whereNotExists(few.select(db.raw('1')).whereRaw('?? = ??', [fewColumn, column]))
    : query.whereNotIn(column, few.select(fewColumn));
}

/**
 * Restricts `query` to the rows whose `idColumn` is one of `ids`, all bound as one value (a comma-separated list on
 * PostgreSQL, a JSON array on SQLite). The id is wrapped (`+ 0`, `+`) so that neither planner looks the ids up by
 * index: the query walks its own order, testing each row against the set.
 */
export function whereIdInBoundSet(
  db: Executor,
  query: Knex.QueryBuilder,
  idColumn: string,
  ids: ArrayLike<number> & { join(separator: string): string },
): Knex.QueryBuilder {
  const list = joinedOnce(ids);
  return isPostgres(db)
    ? query.whereRaw(`(?? + 0) = any(string_to_array(?, ',')::integer[])`, [idColumn, list])
    : query.whereRaw('+?? in (select value from json_each(?))', [idColumn, `[${list}]`]);
}

/**
 * A set's ids as one comma-separated text, kept for the sets bound lately: a memoised set may be bound by every deep
 * page of the lists that use it, and joining 50 000 ids takes milliseconds. Kept apart from the sets, within its own
 * budget (the text, and the set it keeps alive): most sets are never bound (their lists are found in memory), and
 * weighing each set as if it were would hold a third as many of them.
 */
const joined = new LRUCache<object, string>({
  maxSize: 4_000_000,
  sizeCalculation: (text, ids) => text.length + 4 * (ids as ArrayLike<number>).length + 64,
});
function joinedOnce(ids: ArrayLike<number> & { join(separator: string): string }): string {
  let text = joined.get(ids);
  if (text === undefined) joined.set(ids, (text = ids.join(',')));
  return text;
}

/**
 * Restricts `query` to the rows whose `idColumn` the subquery `ids` selects. With many matches SQLite would look
 * each one up and sort them all; `+` has it walk the query's own order instead, testing each row against the
 * matches (3× faster for a word in 5 % of 1 M events). PostgreSQL's planner chooses well on its own.
 */
export function whereIdInSubquery(
  db: Executor,
  query: Knex.QueryBuilder,
  idColumn: string,
  ids: Knex.QueryBuilder,
): Knex.QueryBuilder {
  return isPostgres(db) ? query.whereIn(idColumn, ids) : query.whereRaw('+?? in ?', [idColumn, ids]);
}
