/**
 * Exact totals for list pages, kept cheap: a page with fewer rows than asked for tells its total without counting,
 * and other counts are memoised per database by their SQL and bindings and the data version (memo.ts), so a total
 * is reused only while no write has committed since it was counted, on any node.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Executor } from './types';
import { toNumber } from './dialect';
import { memo } from './memo';

const totals = memo<number>(() => 1, { entries: 1000, budget: 1000 });

/**
 * The total of a list whose page (`limit` rows from `offset`) holds `onPage` rows; `count` builds the query
 * `count({ total: '*' })` of the same filters, which names its memo. `cheapest`, when given, answers an equivalent
 * count that may run faster for these values (a plan chosen by measuring them), asked only when it must be counted.
 */
export async function listTotal(
  db: Executor,
  onPage: number,
  limit: number,
  offset: number,
  count: () => Knex.QueryBuilder,
  cheapest?: () => Promise<Knex.QueryBuilder>,
): Promise<number> {
  if (onPage > 0 && onPage < limit) return offset + onPage;
  if (onPage === 0 && offset === 0) return 0;
  const query = count();
  const { sql, bindings } = query.toSQL();
  return totals.get(db, `${sql}\n${bindingsKey(bindings)}`, async () => runCount(cheapest ? await cheapest() : query));
}

/**
 * The bindings as part of a memo's key: their text, or its SHA-256 when long (a common word's match set, bound as
 * one value, is hundreds of kilobytes at a million events; a thousand such keys would hold hundreds of megabytes).
 */
function bindingsKey(bindings: readonly unknown[]): string {
  const text = JSON.stringify(bindings);
  return text.length <= 1024 ? text : `sha256:${createHash('sha256').update(text).digest('base64')}`;
}

async function runCount(query: Knex.QueryBuilder): Promise<number> {
  const [{ total }] = await query;
  return toNumber(total);
}
