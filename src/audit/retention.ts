/**
 * Retention: audit entries older than `AUDIT_RETENTION_DAYS` (365 by default), idempotency keys past their 24
 * hours and expired login throttle counters are deleted at start-up and then hourly. Every node may run it: the deletes are idempotent.
 */
import type { Db } from '../db/types';
import type { Logger } from '../logger';
import { purgeExpired } from './repository';

const EVERY_MS = 3_600_000;

export function startRetention(db: Db, retentionDays: number, logger: Logger): () => void {
  const run = () =>
    purgeExpired(db, retentionDays)
      .then((purged) => {
        if (purged.audit || purged.keys || purged.throttle) logger.info(purged, 'purged expired entries');
      })
      .catch((err: unknown) => logger.warn({ err }, 'retention purge failed'));
  void run();
  const timer = setInterval(run, EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
