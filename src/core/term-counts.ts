/**
 * The count each category and tag carries (WordPress's `count`: its published events), kept on the term so that
 * reads never count. The write kernel (core/write.ts) recounts, at the end of a write, the terms of every post the
 * write said it touches, as they were before and are after.
 */
import type { Knex } from 'knex';
import type { Executor } from '../db/types';
import { lockRows, toNumber } from '../db/dialect';

/**
 * Recounts the published events of these terms, raising the stamps of those whose count moved.
 */
export async function refreshCounts(db: Executor, termIds: number[]): Promise<void> {
  const ids = [...new Set(termIds)].sort((a, b) => a - b);
  if (!ids.length) return;
  // concurrent writers recount one after the other, each statement seeing the links the previous one committed
  if ('isTransaction' in db && db.isTransaction) await lockRows(db as Knex.Transaction, 'terms', ids);
  // each term's events counted once (a category of a million events has tens of thousands), then only the terms
  // whose count moved written, their stamps raised (core/stamps.ts): embedded terms show it
  const published = db('term_relationships as tr')
    .join('events as e', 'e.post_id', 'tr.post_id')
    .whereRaw('tr.term_id = t.id')
    .andWhere('e.status', 'publish')
    .count('*');
  const rows: Array<{ id: unknown; count: unknown; total: unknown }> = await db('terms as t')
    .whereIn('t.id', ids)
    .select('t.id', 't.count', published.as('total'));
  const moved = rows.filter((row) => toNumber(row.total) !== toNumber(row.count));
  if (!moved.length) return;
  const total = db.raw(
    `case id ${moved.map(() => 'when cast(? as integer) then cast(? as integer)').join(' ')} end`,
    moved.flatMap((row) => [toNumber(row.id), toNumber(row.total)]),
  );
  await db('terms')
    .whereIn(
      'id',
      moved.map((row) => toNumber(row.id)),
    )
    .update({ count: total, stamp: db.raw('stamp + 1') });
}

/** The terms (any taxonomy) linked to these posts. */
export async function termIdsOfPosts(db: Executor, postIds: number[]): Promise<number[]> {
  if (!postIds.length) return [];
  const rows: Array<{ term_id: number }> = await db('term_relationships')
    .whereIn('post_id', postIds)
    .distinct('term_id');
  return rows.map((r) => toNumber(r.term_id));
}
