/**
 * The only SQL of scheduled publication. Every query is served by the `posts_list` index (type, status, date_utc,
 * id; migration 009): a scheduled post of one kind is found by its prefix, in the order of its publication date.
 */
import type { Knex } from 'knex';
import type { Executor } from '../db/types';
import { rawRows, toNumber } from '../db/dialect';
import { claimSkippingLocked } from '../db/dialects/locks';
import type { PostType } from '../resources/posts/repository';

/** The earliest publication date (stored UTC text) among the scheduled posts of `type`, if there is one. */
export async function earliestScheduled(db: Executor, type: PostType): Promise<string | undefined> {
  const row = await db('posts').where({ type, status: 'future' }).orderBy('date_utc').first('date_utc');
  return (row as { date_utc: string } | undefined)?.date_utc;
}

/**
 * Claims up to `limit` scheduled posts of `type` due at `at` for this transaction, earliest first, passing over
 * those another node's transaction has claimed (PostgreSQL; SQLite's one writer claims alone).
 */
export async function claimDue(trx: Knex.Transaction, type: PostType, at: string, limit: number): Promise<number[]> {
  const result = await trx.raw(
    `select p.id from posts p where p.type = ? and p.status = 'future' and p.date_utc <= ?
    order by p.date_utc, p.id limit ? ${claimSkippingLocked(trx, 'p')}`,
    [type, at, limit],
  );
  return rawRows<{ id: unknown }>(result).map((row) => toNumber(row.id));
}

/**
 * Publishes those of `ids` that are still scheduled and due at `at` (a conditional update: what another writer
 * published, rescheduled or unpublished meanwhile is left alone) and answers the ids it published. The record's
 * version moves (an `If-Match` taken before no longer holds); its `modified` date stays, as in WordPress.
 */
export async function publish(trx: Knex.Transaction, ids: number[], at: string): Promise<number[]> {
  if (!ids.length) return [];
  const rows: Array<{ id: unknown }> = await trx('posts')
    .whereIn('id', ids)
    .where('status', 'future')
    .where('date_utc', '<=', at)
    .update({ status: 'publish', version: trx.raw('version + 1') })
    .returning('id');
  const published = rows.map((row) => toNumber(row.id));
  // an event's status is repeated in `events` for the list index (migration 002)
  if (published.length) await trx('events').whereIn('post_id', published).update({ status: 'publish' });
  return published;
}
