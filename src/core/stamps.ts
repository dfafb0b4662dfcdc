/**
 * Representation stamps (migration 014): every post and term carries a number that each write changing what the
 * record shows raises, in the write's transaction. The kernel raises the stamps of the records a write announces as
 * changed (the same list the change feed and the webhooks get, so a write cannot change a record without both), and
 * term-counts.ts raises a term's when its count moves. Cached representations are keyed by the stamps of the record
 * and of everything it embeds (src/cache/), so a raised stamp retires them on every node at once.
 */
import type { Knex } from 'knex';
import type { Resource } from './outbox';

const TABLE_OF: Record<Resource, 'posts' | 'terms'> = {
  event: 'posts',
  venue: 'posts',
  organizer: 'posts',
  category: 'terms',
  tag: 'terms',
};

/** Raises, once each, the stamps of the records these changes name (deleted ones are gone or in the trash). */
export async function raiseStamps(trx: Knex.Transaction, changes: Array<{ resource: Resource; ids: number[] }>) {
  const ids = { posts: new Set<number>(), terms: new Set<number>() };
  for (const { resource, ids: changed } of changes) for (const id of changed) ids[TABLE_OF[resource]].add(id);
  for (const table of ['posts', 'terms'] as const) {
    const sorted = [...ids[table]].sort((a, b) => a - b); // one lock order for concurrent writers (PostgreSQL)
    for (let at = 0; at < sorted.length; at += 500) {
      await trx(table)
        .whereIn('id', sorted.slice(at, at + 500))
        .update({ stamp: trx.raw('stamp + 1') });
    }
  }
}
