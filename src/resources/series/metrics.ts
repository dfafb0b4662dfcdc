/** The recurrence horizon in the Prometheus metrics (src/ops/metrics.ts): read from the database when scraped. */
import type { Config } from '../../config';
import type { Db } from '../../db/types';
import type { Metrics } from '../../metrics/registry';
import { horizonLag } from './horizon';

export function registerSeriesMetrics(metrics: Metrics, db: Db, config: Readonly<Config>): void {
  metrics.gauge(
    'recurrence_horizon_lag_seconds',
    'How far the least-extended open-ended recurring series falls short of the horizon it should reach now',
    async () => (await horizonLag(db, config)).lagSeconds,
  );
  metrics.gauge(
    'recurrence_horizon_extension_age_seconds',
    'Time since the daily recurrence horizon extension last ran',
    async () => (await horizonLag(db, config)).sinceExtensionSeconds,
  );
}
