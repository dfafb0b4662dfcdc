/**
 * The only SQL of scheduled publication. Every query names a kind and the `future` status, the prefix of two indexes
 * of `posts` ((type, status) and (type, status, date_utc, id)): no migration needed, and no whole table read
 * (test/db/list-plans.test.ts checks the plans on both engines).
 */
import type { Knex } from 'knex';
import type { Executor } from '../db/types';
import { rawRows, toNumber } from '../db/dialect';
import { claimSkippingLocked } from '../db/dialects/locks';
import type { PostType } from '../resources/posts/repository';

/** The scheduled posts of `type`, earliest publication date first (`limit` them). */
export function scheduledQuery(db: Executor, type: PostType): Knex.QueryBuilder {
  return db('posts as p').where({ 'p.type': type, 'p.status': 'future' }).orderBy(['p.date_utc', 'p.id']);
}

/** Those due at `at`: published at or before it. */
export function dueQuery(db: Executor, type: PostType, at: string, limit: number): Knex.QueryBuilder {
  return scheduledQuery(db, type).where('p.date_utc', '<=', at).limit(limit).select('p.id');
}

/** The earliest publication date (stored UTC text) among the scheduled posts of `type`, if there is one. */
export async function earliestScheduled(db: Executor, type: PostType): Promise<string | undefined> {
  const row = await scheduledQuery(db, type).first('p.date_utc');
  return (row as { date_utc: string } | undefined)?.date_utc;
}

/**
 * Claims up to `limit` scheduled posts of `type` due at `at` for this transaction, earliest first, passing over
 * those another node's transaction has claimed (PostgreSQL; SQLite's one writer claims alone).
 */
export async function claimDue(trx: Knex.Transaction, type: PostType, at: string, limit: number): Promise<number[]> {
  const { sql, bindings } = dueQuery(trx, type, at, limit).toSQL();
  const result = await trx.raw(`${sql} ${claimSkippingLocked(trx, 'p')}`, bindings);
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
