/**
 * Delivers the webhook outbox, outside request handling: every node runs one, each tick claims due deliveries
 * (repository.claimDue), sends them at once, logs each attempt and schedules the next one. A node killed mid-send
 * leaves a lease that runs out, after which any node sends the message again (at least once; receivers de-duplicate
 * by `webhook-id`). The same loop prunes the change feed and the delivery log.
 */
import type { Logger } from 'pino';
import type { Db } from '../../db/types';
import type { Config } from '../../config';
import type { RepresentationCache } from '../../cache/representations';
import type { Metrics } from '../../metrics/registry';
import { offlineReader } from '../../core/reader';
import { utcAt, utcNow } from '../../db/dialect';
import { now } from '../../domain/clock';
import { pruneChanges } from '../changes';
import type { Resource } from '../../core/outbox';
import { readRecord } from '../../resources/records';
import * as repo from './repository';
import { openSecret, signatureHeader } from './signing';
import { post, type AttemptResult } from './transport';
import { countDelivery } from './metrics';

const BATCH = 20;
const PRUNE_EVERY_MS = 60_000;

/** What a dispatcher works with (the app's context is one). */
export interface DispatcherContext {
  db: Db;
  config: Readonly<Config>;
  metrics: Metrics;
  /** Messages render records as anonymous readers do (src/cache/). */
  cache: RepresentationCache;
}

export interface Dispatcher {
  /** One pass: claim what is due and deliver it (tests call it to step the dispatcher). */
  tick(): Promise<number>;
  stop(): Promise<void>;
}

export function startDispatcher(context: DispatcherContext, logger: Logger, { loop = true } = {}): Dispatcher {
  let stopped = false;
  let lastPrune = 0;
  let running: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  const tick = async () => {
    if (Date.now() - lastPrune > PRUNE_EVERY_MS) {
      lastPrune = Date.now();
      await pruneChanges(context.db, context.config);
      // the delivery log is kept as long as the feed
      await repo.pruneDeliveries(context.db, utcAt(now().getTime() - context.config.changesRetentionDays * 86_400_000));
    }
    // a claim outlives any attempt (bounded by the timeout) with room for clock differences between nodes
    const leaseMs = 2 * context.config.webhookTimeoutMs + 5_000;
    const due = await repo.claimDue(context.db, utcNow(), utcAt(now().getTime() + leaseMs), BATCH);
    await Promise.all(
      due.map((d) =>
        deliver(context, d).catch((err) => logger.error({ err, delivery: d.id }, 'webhook delivery failed')),
      ),
    );
    return due.length;
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick()
        .catch((err) => logger.error({ err }, 'webhook dispatcher pass failed'))
        .then((count) => (count === BATCH ? setImmediate(schedule) : schedule()));
    }, context.config.webhookPollMs);
    timer.unref();
  };
  if (loop) schedule();
  return {
    tick,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/** The body of a message: fixed at its first attempt, so that every retry sends (and signs) the same bytes. */
async function payloadOf(context: DispatcherContext, d: repo.DeliveryRow): Promise<string> {
  if (d.payload !== null) return d.payload;
  const timestamp = `${d.created_utc.replace(' ', 'T')}Z`;
  let data: object;
  if (d.resource === null || d.record_id === null) data = { webhook_id: d.webhook_id };
  else {
    const reader = offlineReader(context);
    const record = d.type.endsWith('.deleted')
      ? undefined
      : await readRecord(reader, d.resource as Resource, d.record_id);
    data = { id: d.record_id, record: record ?? null };
  }
  const payload = JSON.stringify({ type: d.type, timestamp, data });
  await repo.updateDelivery(context.db, d.id, { payload });
  return payload;
}

function secretsOf(context: DispatcherContext, hook: repo.WebhookRow): string[] {
  const key = context.config.webhookSecretKey;
  const secrets = [openSecret(hook.secret, key)];
  if (hook.previous_secret && hook.previous_secret_until_utc && hook.previous_secret_until_utc > utcNow()) {
    secrets.push(openSecret(hook.previous_secret, key));
  }
  return secrets;
}

async function deliver(context: DispatcherContext, d: repo.DeliveryRow & { webhook: repo.WebhookRow }): Promise<void> {
  const { config } = context;
  const body = await payloadOf(context, d);
  const timestamp = Math.floor(now().getTime() / 1000);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'calendar-events-webhooks/1',
    'webhook-id': d.message_id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(secretsOf(context, d.webhook), d.message_id, timestamp, body),
  };
  const attemptedUtc = utcNow();
  const result = await post(d.webhook.url, headers, body, config.webhookTimeoutMs, config.webhookAllowPrivate);
  await record(context, d, attemptedUtc, result);
}

const succeeded = (r: AttemptResult) => r.error === null && r.status !== null && r.status >= 200 && r.status < 300;

/**
 * Logs the attempt, then: done, another try later (the retry schedule), or given up; disables a hook failing too long.
 */
async function record(
  context: DispatcherContext,
  d: repo.DeliveryRow & { webhook: repo.WebhookRow },
  attemptedUtc: string,
  result: AttemptResult,
): Promise<void> {
  const { config } = context;
  const ok = succeeded(result);
  const retryIn = config.webhookRetrySchedule[d.attempt_count - 1];
  countDelivery(context.metrics, ok ? 'succeeded' : retryIn === undefined ? 'failed' : 'retrying');
  await context.db.transaction(async (trx) => {
    await repo.insertAttempt(trx, {
      delivery_id: d.id,
      attempt: d.attempt_count,
      attempted_utc: attemptedUtc,
      status: result.status,
      duration_ms: result.durationMs,
      response_body: result.responseBody,
      error: result.error,
    });
    await repo.updateDelivery(trx, d.id, {
      state: ok ? 'succeeded' : retryIn === undefined ? 'failed' : 'pending',
      // rounded up to the stored second: never due before the delay has passed
      next_attempt_utc:
        ok || retryIn === undefined
          ? d.next_attempt_utc
          : utcAt(Math.ceil((now().getTime() + retryIn * 1000) / 1000) * 1000),
      claimed_until_utc: null,
      last_attempt_utc: attemptedUtc,
      last_status: result.status,
    });
    const hook = await repo.findWebhook(trx, d.webhook_id);
    if (!hook) return;
    if (ok) {
      if (hook.failing_since_utc) await repo.updateWebhook(trx, hook.id, { failing_since_utc: null });
      return;
    }
    const since = hook.failing_since_utc ?? attemptedUtc;
    const failingMs = now().getTime() - Date.parse(`${since.replace(' ', 'T')}Z`);
    if (hook.active && failingMs >= config.webhookDisableAfterSeconds * 1000) {
      await repo.updateWebhook(trx, hook.id, {
        failing_since_utc: since,
        active: false,
        disabled_utc: utcNow(),
        disabled_reason: `every delivery failed since ${since} UTC`,
      });
    } else if (!hook.failing_since_utc) await repo.updateWebhook(trx, hook.id, { failing_since_utc: since });
  });
}
