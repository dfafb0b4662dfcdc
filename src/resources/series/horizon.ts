/**
 * The horizon of open-ended series: they are materialised RECURRENCE_HORIZON_MONTHS ahead, extended by a daily job
 * (one node at a time, through a lease), never by a read (D65: a list past the horizon answers what is materialised);
 * and how far behind they are, for the metrics.
 */
import { DateTime } from 'luxon';
import type { Config } from '../../config';
import type { Db, Executor } from '../../db/types';
import { lockFor } from '../../db/dialect';
import { now } from '../../domain/clock';
import { formatUtc, type WallClock } from '../../domain/dates';
import { write } from '../../core/write';
import { findEvent } from '../events/repository';
import { horizonFrom } from './definition';
import { materialise } from './materialise';
import * as repo from './repository';

/** Adds the occurrences of one open-ended series up to `untilUtc` (its own transaction, once per series). */
async function extendSeries(db: Db, seriesId: number, untilUtc: WallClock): Promise<void> {
  await write(db, async (w) => {
    const { trx } = w;
    await lockFor(trx, `series:${seriesId}`);
    const series = await repo.findSeries(trx, seriesId, { lock: true });
    const event = await findEvent(trx, seriesId);
    if (!series?.open_ended || !event || (series.horizon_utc ?? '') >= untilUtc) return;
    const extended = { ...series, horizon_utc: untilUtc };
    await materialise(w, event, extended, 'extend');
    await repo.saveSeries(w, extended);
  });
}

/**
 * The daily extension: whichever node first finds the lease older than a day takes it (a row lock on PostgreSQL,
 * the single writer on SQLite) and extends every horizon to now + RECURRENCE_HORIZON_MONTHS. Answers whether it ran.
 */
export async function extendHorizons(db: Db, config: Readonly<Config>): Promise<boolean> {
  const at = now();
  const taken = await db.transaction((trx) =>
    repo.takeLease(trx, formatUtc(DateTime.fromJSDate(at)), formatUtc(DateTime.fromJSDate(at).minus({ days: 1 }))),
  );
  if (!taken) return false;
  const target = horizonFrom(config, at);
  for (const id of await repo.seriesShortOf(db, target, 100_000)) await extendSeries(db, id, target);
  return true;
}

/**
 * For the metrics: how far (seconds) the least-extended open-ended series falls short of the horizon it should
 * reach now (0 without any; the daily extension keeps it under a day), and the time since that extension last ran.
 */
export async function horizonLag(
  db: Executor,
  config: Readonly<Config>,
): Promise<{ lagSeconds: number; sinceExtensionSeconds: number }> {
  const { earliestHorizon, extendedAt } = await repo.horizonStatus(db);
  const at = now();
  const seconds = (wall: WallClock) => DateTime.fromSQL(wall, { zone: 'utc' }).toMillis() / 1000;
  return {
    lagSeconds: earliestHorizon ? Math.max(0, seconds(horizonFrom(config, at)) - seconds(earliestHorizon)) : 0,
    sinceExtensionSeconds: extendedAt ? Math.max(0, at.getTime() / 1000 - seconds(extendedAt)) : 0,
  };
}

/** Runs `extendHorizons` every hour (it does the work at most once a day across nodes). */
export function startHorizonJob(db: Db, config: Readonly<Config>, onError: (err: unknown) => void): () => void {
  const run = () => {
    extendHorizons(db, config).catch(onError);
  };
  const timer = setInterval(run, 3_600_000);
  timer.unref();
  setImmediate(run);
  return () => clearInterval(timer);
}
