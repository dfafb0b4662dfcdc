/**
 * The service's "now" (DEVELOPERS.md: time is an input). Everything that asks what time it is (stored timestamps, the
 * default list window, "future" statuses, horizons, retention, retry schedules) asks this module, never `Date`
 * directly, so that tests can place the whole service at a chosen instant whatever the wall clock says.
 * Elapsed-time measurements (timeouts, caches, throttles) keep using the process's own monotonic time.
 */
import { performance } from 'node:perf_hooks';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

let current: Clock = systemClock;

/** The current instant by the service's clock. */
export function now(): Date {
  return current.now();
}

/** Replaces the clock (tests); `systemClock` puts the real one back. */
export function setClock(clock: Clock): void {
  current = clock;
}

/**
 * A clock that starts at `instant` and then runs at the real pace (as `faketime -f '@…'` does), so that successive
 * writes still get increasing timestamps.
 */
export function clockStartingAt(instant: string | Date): Clock {
  const start = new Date(instant).getTime();
  if (Number.isNaN(start)) throw new RangeError(`Not an instant: ${String(instant)}`);
  const origin = performance.now();
  return { now: () => new Date(start + Math.floor(performance.now() - origin)) };
}

/** A clock standing still at `instant`, moved only by `advance` (tests of horizons, retention, schedules). */
export function manualClock(
  instant: string | Date,
): Clock & { advance(ms: number): void; set(instant: string | Date): void } {
  let at = new Date(instant).getTime();
  if (Number.isNaN(at)) throw new RangeError(`Not an instant: ${String(instant)}`);
  return {
    now: () => new Date(at),
    advance(ms) {
      at += ms;
    },
    set(next) {
      at = new Date(next).getTime();
    },
  };
}
