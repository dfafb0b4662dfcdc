/**
 * The administrators' routes of webhook subscriptions: create, read, update, delete, ping, rotate the secret, list
 * deliveries with their attempts, retry one. Secrets leave the service only in the answers of create and rotate.
 * Create, update, rotate and delete are audited in their transaction (the secret never: a rotation is recorded as
 * `secret` changed, `[redacted]`).
 */
import type { HandlerTable, TypedRequest, TypedResponse } from '../../http/handler';
import { context } from '../../http/context';
import { ApiError, invalidParam } from '../../core/errors';
import { paging } from '../../http/paging';
import { utcAt, utcNow } from '../../db/dialect';
import { now } from '../../domain/clock';
import type { Executor } from '../../db/types';
import { newMessageId } from '../../core/outbox';
import { acceptableUrl } from './address';
import * as repo from './repository';
import { newSecret, sealSecret } from './signing';
import * as subscriptions from './subscriptions';
import { caller } from '../../http/auth';
import type { Caller } from '../../users/roles';

/** How long the previous secret keeps signing after a rotation. */
const ROTATION_OVERLAP_MS = 24 * 3_600_000;

type Req<O extends keyof HandlerTable> = TypedRequest<O>;

function toWireWebhook(row: repo.WebhookRow, secret?: string) {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    active: row.active,
    description: row.description,
    ...(secret ? { secret } : {}),
    failing_since_utc: row.failing_since_utc,
    disabled_utc: row.disabled_utc,
    disabled_reason: row.disabled_reason,
    created_utc: row.created_utc,
    modified_utc: row.modified_utc,
  };
}

function toWireDelivery(row: repo.DeliveryRow, attempts: repo.AttemptRow[]) {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    message_id: row.message_id,
    type: row.type,
    resource: row.resource,
    record_id: row.record_id,
    created_utc: row.created_utc,
    state: row.state,
    attempt_count: row.attempt_count,
    next_attempt_utc: row.state === 'pending' ? row.next_attempt_utc : null,
    attempts: attempts.map(({ attempt, attempted_utc, status, duration_ms, response_body, error }) => ({
      attempt,
      attempted_utc,
      status,
      duration_ms,
      response_body,
      error,
    })),
  };
}

async function webhookById(db: Executor, id: number): Promise<repo.WebhookRow> {
  const row = await repo.findWebhook(db, id);
  if (!row) throw new ApiError(404, 'rest_webhook_invalid_id', 'webhook_not_found', {}, { id });
  return row;
}

async function deliveryWire(db: Executor, webhookId: number, id: number) {
  const row = await repo.findDelivery(db, webhookId, id);
  if (!row) throw new ApiError(404, 'rest_webhook_delivery_invalid_id', 'delivery_not_found', {}, { id });
  return toWireDelivery(row, (await repo.attemptsOf(db, [id])).get(id) ?? []);
}

function checkedUrl(req: Req<'createWebhook' | 'updateWebhook'>, url: string): string {
  if (!acceptableUrl(url, context(req).config.webhookAllowPrivate)) throw invalidParam('url', 'webhook_url_invalid');
  return url;
}

const who = (req: Req<keyof HandlerTable>) => caller(req) as Caller;

const sealed = (req: Req<keyof HandlerTable>, secret: string) =>
  sealSecret(secret, context(req).config.webhookSecretKey);

export const webhookHandlers = {
  async listWebhooks(req: Req<'listWebhooks'>, res: TypedResponse<'listWebhooks'>) {
    const page = paging(req.query);
    const { rows, total } = await repo.listWebhooks(context(req).db, page.perPage, page.offset);
    res.json({ webhooks: rows.map((row) => toWireWebhook(row)), total, total_pages: Math.ceil(total / page.perPage) });
  },
  async createWebhook(req: Req<'createWebhook'>, res: TypedResponse<'createWebhook'>) {
    const { db } = context(req);
    const body = req.body as { url: string; events: repo.WebhookEvent[]; active?: boolean; description?: string };
    const secret = newSecret();
    const at = utcNow();
    const fields = {
      url: checkedUrl(req, body.url),
      events: [...new Set(body.events)],
      active: body.active ?? true,
      description: body.description ?? '',
    };
    const values = { ...fields, secret: sealed(req, secret), created_utc: at, modified_utc: at };
    const id = await subscriptions.create(db, who(req), values, fields);
    res.status(201).json(toWireWebhook(await webhookById(db, id), secret));
  },
  async getWebhook(req: Req<'getWebhook'>, res: TypedResponse<'getWebhook'>) {
    res.json(toWireWebhook(await webhookById(context(req).db, req.params.id)));
  },
  async updateWebhook(req: Req<'updateWebhook'>, res: TypedResponse<'updateWebhook'>) {
    const { db } = context(req);
    const row = await webhookById(db, req.params.id);
    const body = req.body ?? {};
    const values: repo.WebhookValues = { modified_utc: utcNow() };
    if (body.url !== undefined) values.url = checkedUrl(req, body.url);
    if (body.events !== undefined) values.events = [...new Set(body.events)];
    if (body.description !== undefined) values.description = body.description;
    if (body.active !== undefined) {
      values.active = body.active;
      // switching a disabled subscription back on gives it a fresh start
      if (body.active && !row.active)
        Object.assign(values, { failing_since_utc: null, disabled_utc: null, disabled_reason: null });
    }
    const { modified_utc: _modified, ...changed } = values;
    await subscriptions.update(db, who(req), row, values, changed);
    res.json(toWireWebhook(await webhookById(db, row.id)));
  },
  async deleteWebhook(req: Req<'deleteWebhook'>, res: TypedResponse<'deleteWebhook'>) {
    const { db } = context(req);
    const row = await webhookById(db, req.params.id);
    await subscriptions.remove(db, who(req), row);
    res.json(toWireWebhook(row));
  },
  async rotateWebhookSecret(req: Req<'rotateWebhookSecret'>, res: TypedResponse<'rotateWebhookSecret'>) {
    const { db } = context(req);
    const row = await webhookById(db, req.params.id);
    const secret = newSecret();
    const stored = sealed(req, secret);
    const previousUntil = utcAt(now().getTime() + ROTATION_OVERLAP_MS);
    await subscriptions.rotate(db, who(req), row, stored, previousUntil);
    res.json(toWireWebhook(await webhookById(db, row.id), secret));
  },
  async pingWebhook(req: Req<'pingWebhook'>, res: TypedResponse<'pingWebhook'>) {
    const { db } = context(req);
    const row = await webhookById(db, req.params.id);
    const at = utcNow();
    const id = await repo.insertDelivery(db, {
      webhook_id: row.id,
      message_id: newMessageId(),
      type: 'webhook.ping',
      resource: null,
      record_id: null,
      created_utc: at,
      state: 'pending',
      attempt_count: 0,
      next_attempt_utc: at,
    });
    res.status(202).json(await deliveryWire(db, row.id, id));
  },
  async listWebhookDeliveries(req: Req<'listWebhookDeliveries'>, res: TypedResponse<'listWebhookDeliveries'>) {
    const { db } = context(req);
    const row = await webhookById(db, req.params.id);
    const page = paging(req.query);
    const { rows, total } = await repo.listDeliveries(db, row.id, page.perPage, page.offset);
    const attempts = await repo.attemptsOf(
      db,
      rows.map((d) => d.id),
    );
    res.json({
      deliveries: rows.map((d) => toWireDelivery(d, attempts.get(d.id) ?? [])),
      total,
      total_pages: Math.ceil(total / page.perPage),
    });
  },
  async retryWebhookDelivery(req: Req<'retryWebhookDelivery'>, res: TypedResponse<'retryWebhookDelivery'>) {
    const { db } = context(req);
    const row = await webhookById(db, req.params.id);
    await deliveryWire(db, row.id, req.params.delivery_id); // 404 when it is not this subscription's
    await repo.updateDelivery(db, req.params.delivery_id, {
      state: 'pending',
      next_attempt_utc: utcNow(),
      claimed_until_utc: null,
    });
    res.status(202).json(await deliveryWire(db, row.id, req.params.delivery_id));
  },
} satisfies Partial<HandlerTable>;
