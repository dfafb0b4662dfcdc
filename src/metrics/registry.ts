/**
 * The metrics registry (prom-client), one per service: features register their own with `counter`, `histogram` and
 * `gauge` (a gauge reads its value when scraped, e.g. the webhook outbox depth), and logins are counted here.
 * Recording is kept to a map lookup and an observation; nothing is computed until `/metrics` is read
 * (src/ops/metrics.ts serves it and instruments requests and queries).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

type Labels = Record<string, string | number>;
/** What a gauge reads when scraped: one value, or one value per label set. */
export type GaugeReading = number | Array<{ labels: Labels; value: number }>;

export interface Metrics {
  readonly registry: Registry;
  readonly enabled: boolean;
  /** A counter (the existing one when `name` is registered already). */
  counter<L extends string>(name: string, help: string, labelNames?: readonly L[]): Counter<L>;
  histogram<L extends string>(name: string, help: string, labelNames?: readonly L[], buckets?: number[]): Histogram<L>;
  /** A gauge whose value `collect` reads at scrape time (it may query the database). */
  gauge(
    name: string,
    help: string,
    collect: () => GaugeReading | Promise<GaugeReading>,
    labelNames?: readonly string[],
  ): Gauge;
  /** A failed login (`reason`: unknown user or wrong password) and a login refused by the throttle. */
  loginFailed(reason: 'invalid_username' | 'incorrect_password'): void;
  loginThrottled(): void;
}

export const SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics({ enabled = true }: { enabled?: boolean } = {}): Metrics {
  const registry = new Registry();
  const registers = [registry];
  const metrics: Metrics = {
    registry,
    enabled,
    // by name, once: a feature may ask for its counter where it records (the same metric every time)
    counter: (name, help, labelNames = []) =>
      (registry.getSingleMetric(name) as Counter<never>) ?? new Counter({ name, help, labelNames, registers }),
    histogram: (name, help, labelNames = [], buckets = SECONDS_BUCKETS) =>
      (registry.getSingleMetric(name) as Histogram<never>) ??
      new Histogram({ name, help, labelNames, buckets, registers }),
    gauge(name, help, collect, labelNames = []) {
      return new Gauge({
        name,
        help,
        labelNames,
        registers,
        async collect() {
          let reading: GaugeReading;
          try {
            reading = await collect();
          } catch {
            return; // the database is away: the other metrics still answer (and /readyz says why)
          }
          if (typeof reading === 'number') this.set(reading);
          else {
            this.reset();
            for (const { labels, value } of reading) this.set(labels, value);
          }
        },
      });
    },
    loginFailed: (reason) => loginFailures.inc({ reason }),
    loginThrottled: () => loginThrottles.inc(),
  };
  const loginFailures = metrics.counter('auth_login_failures_total', 'Logins refused for wrong credentials', [
    'reason',
  ]);
  const loginThrottles = metrics.counter(
    'auth_login_throttled_total',
    'Logins refused by the failed-login throttle (429)',
  );
  if (enabled) {
    collectDefaultMetrics({ register: registry });
    // gauges named like counters (promtool refuses them); `nodejs_active_*` by type carry the same numbers
    for (const name of ['handles', 'requests', 'resources']) registry.removeSingleMetric(`nodejs_active_${name}_total`);
  }
  return metrics;
}
