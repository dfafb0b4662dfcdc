/**
 * The one entry point of the write paths into integrations: `recordChanges(trx, …)`, called by the write kernel
 * (core/write.ts) as the last step of every write transaction, appends the changes to the feed and one outbox row per
 * change and matching webhook subscription. Committed with the write or not at all, so the feed, the webhooks and
 * the records never disagree.
 *
 * Order on PostgreSQL: sequence values are taken at insert but become visible at commit, so a reader could see id
 * 11 before a slower transaction commits id 10 and move its cursor past it. We serialise the appends instead: a
 * transaction-scoped advisory lock taken just before the insert and held to commit, so ids commit in id order.
 * The kernel calls this last in the transaction, and the subscriptions are read before the lock, which keeps the
 * serialised part to the insert and the commit. SQLite has one writer already. On PostgreSQL the append also
 * notifies the other nodes' change streams, delivered at commit (db/dialects/change-signal.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { lockFor, toNumber, utcNow } from '../db/dialect';
import { signalChanges } from '../db/dialects/change-signal';
import { KIND_NAMES, type Kind } from '../kinds/registry';

/** The feed's and the webhooks' resources: every record kind (src/kinds/). */
export const RESOURCES: readonly Resource[] = KIND_NAMES;
export type Resource = Kind;
export const ACTIONS = ['created', 'updated', 'deleted'] as const;
export type Action = (typeof ACTIONS)[number];

/** `msg_` + 144 random bits: unique per message, kept across its retries (Standard Webhooks `webhook-id`). */
export function newMessageId(): string {
  return `msg_${randomBytes(18).toString('base64url')}`;
}

/** Whether a subscription's `events` list takes this event type. */
export function subscribes(events: string[], type: string): boolean {
  return events.includes('*') || events.includes(type);
}

/** Changes of records of one kind, in the order given (a series writes many at once): one insert per table. */
export async function recordChanges(
  trx: Knex.Transaction,
  resource: Resource,
  recordIds: number[],
  action: Action,
): Promise<void> {
  if (!recordIds.length) return;
  // the subscriptions are read before the lock: the serialised part stays the insert and the commit
  const hooks = (await trx('webhooks').where({ active: true }).select('id', 'events')) as Array<{
    id: number;
    events: string;
  }>;
  await lockFor(trx, 'change-feed');
  const now = utcNow();
  const changes: Array<{ id: number; record_id: number }> = [];
  for (let at = 0; at < recordIds.length; at += 500) {
    const rows = await trx('changes')
      .insert(
        recordIds.slice(at, at + 500).map((recordId) => ({ resource, record_id: recordId, action, modified_utc: now })),
      )
      .returning(['id', 'record_id']);
    changes.push(
      ...rows.map((row: { id: unknown; record_id: unknown }) => ({
        id: toNumber(row.id),
        record_id: toNumber(row.record_id),
      })),
    );
  }
  await signalChanges(trx); // other nodes' change streams wake when this commits
  const type = `${resource}.${action}`;
  const matching = hooks.filter((hook) => subscribes(JSON.parse(hook.events) as string[], type));
  const deliveries = matching.flatMap((hook) =>
    changes.map((change) => ({
      webhook_id: hook.id,
      message_id: newMessageId(),
      type,
      resource,
      record_id: change.record_id,
      change_id: change.id,
      created_utc: now,
      state: 'pending',
      attempt_count: 0,
      next_attempt_utc: now,
    })),
  );
  for (let at = 0; at < deliveries.length; at += 500)
    await trx('webhook_deliveries').insert(deliveries.slice(at, at + 500));
}
