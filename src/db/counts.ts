/**
 * Exact totals for list pages, kept cheap: a page with fewer rows than asked for tells its total without counting,
 * and other counts are memoised per database by their SQL and bindings and the data version (data-version.ts), so
 * a total is reused only while no write has committed since it was counted, on any node.
 */
import type { Knex } from 'knex';
import type { Executor } from './types';
import { toNumber } from './dialect';
import { dataVersion } from './data-version';

const MEMO_SIZE = 1000;
const memos = new WeakMap<object, Map<string, { version: number; total: number }>>();

/**
 * The total of a list whose page (`limit` rows from `offset`) holds `onPage` rows; `count` builds the query
 * `count({ total: '*' })` of the same filters.
 */
export async function listTotal(
  db: Executor,
  onPage: number,
  limit: number,
  offset: number,
  count: () => Knex.QueryBuilder,
): Promise<number> {
  if (onPage > 0 && onPage < limit) return offset + onPage;
  if (onPage === 0 && offset === 0) return 0;
  return exactCount(db, count());
}

async function exactCount(db: Executor, query: Knex.QueryBuilder): Promise<number> {
  if (db.isTransaction) return runCount(query); // may see its own uncommitted writes: never memoised
  const { sql, bindings } = query.toSQL();
  const key = `${sql}\n${JSON.stringify(bindings)}`;
  const version = await dataVersion(db); // read before counting: the count is at least as new as the version
  let memo = memos.get(db);
  if (!memo) memos.set(db, (memo = new Map()));
  const known = memo.get(key);
  if (known?.version === version) return known.total;
  const total = await runCount(query);
  memo.delete(key);
  if (memo.size >= MEMO_SIZE) memo.delete(memo.keys().next().value as string);
  memo.set(key, { version, total });
  return total;
}

async function runCount(query: Knex.QueryBuilder): Promise<number> {
  const [{ total }] = await query;
  return toNumber(total);
}
