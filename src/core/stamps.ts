/**
 * Representation stamps (migration 014): every post and term carries a number that each write changing what the
 * record shows raises, in the write's transaction. The kernel raises the stamps of the records a write announces as
 * changed (the same list the change feed and the webhooks get, so a write cannot change a record without both), and
 * term-counts.ts raises a term's when its count moves. Cached representations are keyed by the stamps of the record
 * and of everything it embeds (src/cache/), so a raised stamp retires them on every node at once.
 */
import type { Knex } from 'knex';
import { declared, KINDS } from '../kinds/registry';
import type { Action, Resource } from './outbox';

/** The stamped tables, always in one order (posts, then terms): one lock order across tables too. */
const STAMP_TABLES = declared('stampTable');

/**
 * Raises, once each, the stamps of the records these changes name (deleted ones are gone or in the trash). Records
 * created by the write are left as they are: ids are never reused (both engines' keys only grow), so nothing can
 * hold a representation of a record that did not exist, and a stamp raised inside the write that made it would
 * retire nothing.
 */
export async function raiseStamps(
  trx: Knex.Transaction,
  changes: Array<{ resource: Resource; ids: number[]; action?: Action }>,
) {
  const raised = changes.filter(({ action }) => action !== 'created');
  for (const table of STAMP_TABLES) {
    const ids = new Set(raised.filter(({ resource }) => KINDS[resource].stampTable === table).flatMap((c) => c.ids));
    const sorted = [...ids].sort((a, b) => a - b); // one lock order for concurrent writers (PostgreSQL)
    for (let at = 0; at < sorted.length; at += 500) {
      await trx(table)
        .whereIn('id', sorted.slice(at, at + 500))
        .update({ stamp: trx.raw('stamp + 1') });
    }
  }
}
