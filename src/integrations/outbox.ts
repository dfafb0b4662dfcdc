/**
 * The one entry point of the write paths into integrations: `recordChange(trx, …)`, called inside every write
 * transaction, appends the change to the feed and one outbox row per matching webhook subscription. Committed with
 * the write or not at all, so the feed, the webhooks and the records never disagree.
 *
 * Order on PostgreSQL: sequence values are taken at insert but become visible at commit, so a reader could see id
 * 11 before a slower transaction commits id 10 and move its cursor past it. We serialise the appends instead: a
 * transaction-scoped advisory lock taken just before the insert and held to commit, so ids commit in id order.
 * Each service calls this last in its transaction, which keeps the serialised part to the insert and the commit.
 * SQLite has one writer already.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { lockFor, toNumber, utcNow } from '../db/dialect';

export const RESOURCES = ['event', 'venue', 'organizer', 'category', 'tag'] as const;
export type Resource = (typeof RESOURCES)[number];
export type Action = 'created' | 'updated' | 'deleted';

/** The feed resource of a taxonomy. */
export function termResource(taxonomy: string): Resource {
  return taxonomy === 'post_tag' ? 'tag' : 'category';
}

/** `msg_` + 144 random bits: unique per message, kept across its retries (Standard Webhooks `webhook-id`). */
export function newMessageId(): string {
  return `msg_${randomBytes(18).toString('base64url')}`;
}

/** Whether a subscription's `events` list takes this event type. */
export function subscribes(events: string[], type: string): boolean {
  return events.includes('*') || events.includes(type);
}

export async function recordChange(trx: Knex.Transaction, resource: Resource, recordId: number, action: Action): Promise<void> {
  await lockFor(trx, 'change-feed');
  const now = utcNow();
  const [row] = await trx('changes').insert({ resource, record_id: recordId, action, modified_utc: now }).returning('id');
  const changeId = toNumber(typeof row === 'object' ? row.id : row);
  const type = `${resource}.${action}`;
  const hooks = (await trx('webhooks').where({ active: true }).select('id', 'events')) as Array<{ id: number; events: string }>;
  const matching = hooks.filter((hook) => subscribes(JSON.parse(hook.events) as string[], type));
  if (!matching.length) return;
  await trx('webhook_deliveries').insert(matching.map((hook) => ({
    webhook_id: hook.id, message_id: newMessageId(), type, resource, record_id: recordId, change_id: changeId,
    created_utc: now, state: 'pending', attempt_count: 0, next_attempt_utc: now,
  })));
}
