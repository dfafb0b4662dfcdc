/** The only SQL of webhooks: subscriptions, their outbox rows (deliveries) and the attempt log. */
import type { components } from '../../../generated/schema';
import type { Knex } from 'knex';
import type { Db, Executor } from '../../db/types';
import { rawRows, toBoolean, toNumber } from '../../db/dialect';
import { claimSkippingLocked } from '../../db/dialects/locks';

/** A message type a subscription asks for (validated against the spec's enum when written), or `*`. */
export type WebhookEvent = components['schemas']['WebhookEvents'][number];

export interface WebhookRow {
  id: number;
  url: string;
  events: WebhookEvent[];
  active: boolean;
  description: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until_utc: string | null;
  failing_since_utc: string | null;
  disabled_utc: string | null;
  disabled_reason: string | null;
  created_utc: string;
  modified_utc: string;
}

export interface DeliveryRow {
  id: number;
  webhook_id: number;
  message_id: string;
  type: string;
  resource: string | null;
  record_id: number | null;
  created_utc: string;
  payload: string | null;
  state: 'pending' | 'succeeded' | 'failed';
  attempt_count: number;
  next_attempt_utc: string;
  claimed_until_utc: string | null;
  last_attempt_utc: string | null;
  last_status: number | null;
}

export interface AttemptRow {
  delivery_id: number;
  attempt: number;
  attempted_utc: string;
  status: number | null;
  duration_ms: number;
  response_body: string | null;
  error: string | null;
}

function webhook(row: Record<string, unknown>): WebhookRow {
  return {
    ...row,
    id: toNumber(row.id),
    active: toBoolean(row.active),
    events: JSON.parse(String(row.events)),
  } as WebhookRow;
}

function delivery(row: Record<string, unknown>): DeliveryRow {
  return {
    ...row,
    id: toNumber(row.id),
    webhook_id: toNumber(row.webhook_id),
    attempt_count: toNumber(row.attempt_count),
    record_id: row.record_id === null ? null : toNumber(row.record_id),
    last_status: row.last_status === null ? null : toNumber(row.last_status),
  } as DeliveryRow;
}

export async function findWebhook(db: Executor, id: number): Promise<WebhookRow | undefined> {
  const row = await db('webhooks').where({ id }).first();
  return row && webhook(row);
}

export async function listWebhooks(
  db: Executor,
  limit: number,
  offset: number,
): Promise<{ rows: WebhookRow[]; total: number }> {
  const [{ n }] = await db('webhooks').count('* as n');
  const rows = await db('webhooks').orderBy('id').limit(limit).offset(offset);
  return { rows: rows.map(webhook), total: toNumber(n) };
}

export type WebhookValues = Partial<Omit<WebhookRow, 'id' | 'events'>> & { events?: WebhookEvent[] };

const columns = ({ events, ...rest }: WebhookValues) => ({
  ...rest,
  ...(events ? { events: JSON.stringify(events) } : {}),
});

export async function insertWebhook(db: Executor, values: WebhookValues): Promise<number> {
  const [row] = await db('webhooks').insert(columns(values)).returning('id');
  return toNumber(typeof row === 'object' ? row.id : row);
}

export async function updateWebhook(db: Executor, id: number, values: WebhookValues): Promise<void> {
  await db('webhooks').where({ id }).update(columns(values));
}

export async function deleteWebhook(db: Executor, id: number): Promise<void> {
  await db('webhooks').where({ id }).delete();
}

export async function insertDelivery(
  db: Executor,
  values: Omit<DeliveryRow, 'id' | 'payload' | 'claimed_until_utc' | 'last_attempt_utc' | 'last_status'>,
): Promise<number> {
  const [row] = await db('webhook_deliveries').insert(values).returning('id');
  return toNumber(typeof row === 'object' ? row.id : row);
}

export async function findDelivery(db: Executor, webhookId: number, id: number): Promise<DeliveryRow | undefined> {
  const row = await db('webhook_deliveries').where({ id, webhook_id: webhookId }).first();
  return row && delivery(row);
}

/** A subscription's deliveries, newest first. */
export async function listDeliveries(
  db: Executor,
  webhookId: number,
  limit: number,
  offset: number,
): Promise<{ rows: DeliveryRow[]; total: number }> {
  const [{ n }] = await db('webhook_deliveries').where({ webhook_id: webhookId }).count('* as n');
  const rows = await db('webhook_deliveries')
    .where({ webhook_id: webhookId })
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset);
  return { rows: rows.map(delivery), total: toNumber(n) };
}

export async function attemptsOf(db: Executor, deliveryIds: number[]): Promise<Map<number, AttemptRow[]>> {
  const byDelivery = new Map<number, AttemptRow[]>(deliveryIds.map((id) => [id, []]));
  if (!deliveryIds.length) return byDelivery;
  const rows = await db('webhook_attempts').whereIn('delivery_id', deliveryIds).orderBy('id');
  for (const row of rows) {
    const attempt = {
      ...row,
      delivery_id: toNumber(row.delivery_id),
      status: row.status === null ? null : toNumber(row.status),
      duration_ms: toNumber(row.duration_ms),
    };
    byDelivery.get(attempt.delivery_id)?.push(attempt);
  }
  return byDelivery;
}

export async function updateDelivery(db: Executor, id: number, values: Partial<DeliveryRow>): Promise<void> {
  await db('webhook_deliveries').where({ id }).update(values);
}

/** Forgets finished deliveries (and their attempts) created before `cutoff`; pending ones stay whatever their age. */
export async function pruneDeliveries(db: Executor, cutoff: string): Promise<void> {
  await db('webhook_deliveries').whereNot({ state: 'pending' }).andWhere('created_utc', '<', cutoff).delete();
}

export async function insertAttempt(db: Executor, attempt: AttemptRow): Promise<void> {
  await db('webhook_attempts').insert(attempt);
}

/**
 * Claims up to `limit` due deliveries of active subscriptions and leases them until `leaseUntil`, counting the
 * attempt: on PostgreSQL with `FOR UPDATE SKIP LOCKED`, so nodes claiming at once never take the same row, and a
 * lease, so no transaction stays open while a receiver answers. A delivery waits while an earlier one of the same
 * record to the same subscription is still pending: one record's deliveries go out in order.
 */
export async function claimDue(
  db: Db,
  at: string,
  leaseUntil: string,
  limit: number,
): Promise<Array<DeliveryRow & { webhook: WebhookRow }>> {
  return db.transaction(async (trx) => {
    const lock = claimSkippingLocked(trx, 'd');
    const { ids } = await dueIds(trx, at, limit, lock);
    if (!ids.length) return [];
    await trx('webhook_deliveries')
      .whereIn('id', ids)
      .update({ claimed_until_utc: leaseUntil, attempt_count: trx.raw('attempt_count + 1') });
    const rows = await trx('webhook_deliveries').whereIn('id', ids).orderBy('id');
    const hooks = await trx('webhooks').whereIn('id', [...new Set(rows.map((r) => r.webhook_id))]);
    const byId = new Map(hooks.map((h) => [toNumber(h.id), webhook(h)]));
    return rows.map((row) => ({ ...delivery(row), webhook: byId.get(toNumber(row.webhook_id)) as WebhookRow }));
  });
}

async function dueIds(trx: Knex.Transaction, at: string, limit: number, lock: string): Promise<{ ids: number[] }> {
  const result = await trx.raw(
    `select d.id from webhook_deliveries d join webhooks w on w.id = d.webhook_id
    where d.state = 'pending' and d.next_attempt_utc <= ? and (d.claimed_until_utc is null or d.claimed_until_utc < ?)
      and w.active = ? and not exists (select 1 from webhook_deliveries e where e.webhook_id = d.webhook_id
        and e.resource = d.resource and e.record_id = d.record_id and e.id < d.id and e.state = 'pending')
    order by d.id limit ? ${lock}`,
    [at, at, true, limit],
  );
  const rows = rawRows<{ id: number | string }>(result);
  return { ids: rows.map((r) => toNumber(r.id)) };
}

/** For the metrics: deliveries waiting to go out (every node's), and when the oldest of them was created. */
export async function outboxStatus(db: Executor): Promise<{ pending: number; oldestCreatedUtc: string | null }> {
  const [row] = await db('webhook_deliveries')
    .where({ state: 'pending' })
    .count({ pending: '*' })
    .min({ oldest: 'created_utc' });
  return { pending: toNumber(row?.pending), oldestCreatedUtc: (row?.oldest as string | null | undefined) ?? null };
}
