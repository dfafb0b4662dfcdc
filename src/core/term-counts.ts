/**
 * The count each category and tag carries (WordPress's `count`: its published events), kept on the term so that
 * reads never count. The write kernel (core/write.ts) moves it by what a write changed: the published events linked
 * to each term among the posts the write said it touches, after the work less before it (docs/decisions.md: a full
 * recount of a category walks all its links, 117–460 ms at a million events, on the event loop under better-sqlite3).
 */
import type { Knex } from 'knex';
import type { Executor } from '../db/types';
import { lockRows, toNumber } from '../db/dialect';

/** Post ids per statement: far below either engine's limit on bound values. */
const BATCH = 500;

/**
 * Per term, how many of these posts are published events linked to it (terms with none are absent). Reads only
 * these posts' links, however many other events the terms have.
 */
export async function publishedLinks(db: Executor, postIds: number[]): Promise<Map<number, number>> {
  const found = new Map<number, number>();
  for (let i = 0; i < postIds.length; i += BATCH) {
    const rows: Array<{ term_id: unknown; n: unknown }> = await db('term_relationships as tr')
      .join('events as e', 'e.post_id', 'tr.post_id')
      .whereIn('tr.post_id', postIds.slice(i, i + BATCH))
      .andWhere('e.status', 'publish')
      .groupBy('tr.term_id')
      .select('tr.term_id', db.raw('count(*) as n'));
    for (const row of rows) {
      const id = toNumber(row.term_id);
      found.set(id, (found.get(id) ?? 0) + toNumber(row.n));
    }
  }
  return found;
}

/**
 * Moves each term's count by its delta in one statement, raising the stamps of the terms that moved (core/stamps.ts:
 * embedded terms show the count); terms gone meanwhile (deleted in the same write) match no row.
 */
export async function moveCounts(trx: Knex.Transaction, deltas: Map<number, number>): Promise<void> {
  const moved = [...deltas].filter(([, delta]) => delta !== 0).sort(([a], [b]) => a - b);
  if (!moved.length) return;
  const ids = moved.map(([id]) => id);
  // the increment is atomic; the locks, in id order, keep two writers moving the same terms from deadlocking on
  // the order in which one statement happens to reach the rows
  if (moved.length > 1) await lockRows(trx, 'terms', ids);
  const by = trx.raw(
    `?? + case id ${moved.map(() => 'when cast(? as integer) then cast(? as integer)').join(' ')} end`,
    ['count', ...moved.flat()],
  );
  await trx('terms')
    .whereIn('id', ids)
    .update({ count: by, stamp: trx.raw('stamp + 1') });
}

/**
 * Recounts the published events of these terms from scratch, raising the stamps of those whose count moved. A write
 * that cannot say what its posts were before changing them falls back to it (it walks every link of each term).
 */
export async function refreshCounts(db: Executor, termIds: number[]): Promise<void> {
  const ids = [...new Set(termIds)].sort((a, b) => a - b);
  if (!ids.length) return;
  // concurrent writers recount one after the other, each statement seeing the links the previous one committed
  if ('isTransaction' in db && db.isTransaction) await lockRows(db as Knex.Transaction, 'terms', ids);
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
