/**
 * The webhook outbox in the Prometheus metrics (src/ops/metrics.ts): its depth and the age of its oldest message,
 * read from the database when scraped (the same figures on every node), and this node's delivery attempts by
 * outcome (`succeeded`; `retrying`: failed, another try scheduled; `failed`: failed for good).
 */
import type { Db } from '../../db/types';
import { now } from '../../domain/clock';
import type { Metrics } from '../../metrics/registry';
import { outboxStatus } from './repository';

export type DeliveryOutcome = 'succeeded' | 'retrying' | 'failed';

export function registerWebhookMetrics(metrics: Metrics, db: Db): void {
  metrics.gauge(
    'webhook_outbox_depth',
    'Webhook deliveries waiting to be sent (all nodes)',
    async () => (await outboxStatus(db)).pending,
  );
  metrics.gauge(
    'webhook_outbox_oldest_age_seconds',
    'Age of the oldest webhook delivery not yet sent (0 when none)',
    async () => {
      const { oldestCreatedUtc } = await outboxStatus(db);
      return oldestCreatedUtc
        ? Math.max(0, (now().getTime() - Date.parse(`${oldestCreatedUtc.replace(' ', 'T')}Z`)) / 1000)
        : 0;
    },
  );
  deliveries(metrics);
}

/** Counts one delivery attempt of this node by its outcome. */
export function countDelivery(metrics: Metrics, outcome: DeliveryOutcome): void {
  deliveries(metrics).inc({ outcome });
}

const deliveries = (metrics: Metrics) =>
  metrics.counter('webhook_deliveries_total', 'Webhook delivery attempts of this node by outcome', ['outcome']);
