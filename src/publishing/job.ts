/**
 * The publishing job every node runs (docs/decisions.md D118): a pass publishes what is due, then a timer is armed
 * for the next publication date, so a post goes live at its date, not at the next tick of a poll. The timer is
 * re-armed after this node's own writes of posts (a write may schedule an earlier date), and never waits longer than
 * a minute, the bound on how late a date scheduled by another node (or the CLI) can be noticed.
 */
import { performance } from 'node:perf_hooks';
import { afterWrites, type Announced } from '../core/write';
import type { Db } from '../db/types';
import { now } from '../domain/clock';
import type { Logger } from '../logger';
import { nextDue, publishDue, SCHEDULED_KINDS } from './publish';

/** The longest wait between two passes: what another node schedules is seen within it. */
export const FALLBACK_MS = 60_000;
/** The shortest wait while posts are due but not published (another node holds them, or a pass failed). */
export const RETRY_MS = 1_000;
/** The shortest wait between a pass and one started by this node's own writes (a bulk import writes many). */
export const NUDGE_GAP_MS = 1_000;

export interface Publisher {
  /** One pass now: publish what is due, arm the timer. Answers how many posts it published (tests step it). */
  run(): Promise<number>;
  /** The instant (epoch ms, service clock) of the next publication date the last pass found; undefined for none. */
  nextDate(): number | undefined;
  /** Resolves once the pass a write asked for, if any, has run (tests). */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * How long to wait for a post due at `due` (epoch ms) when the service clock says `at`: until its date, at most
 * `FALLBACK_MS`; `RETRY_MS` when it is due already (a pass just left it: it is someone else's to publish, or failed).
 */
export function waitFor(due: number | undefined, at: number): number {
  if (due === undefined) return FALLBACK_MS;
  if (due <= at) return RETRY_MS;
  return Math.min(due - at, FALLBACK_MS);
}

/** Starts the job: a first pass at once (posts that came due while no node ran), then as the timer says. */
export function startPublisher(db: Db, logger: Logger, { loop = true } = {}): Publisher {
  let active = loop; // arms timers and follows writes (tests step a job that does not: `loop: false`)
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let next: number | undefined;
  let chain: Promise<unknown> = Promise.resolve();
  let publishing = false;
  let lastPass = Number.NEGATIVE_INFINITY;
  let nudged: Promise<void> | undefined;
  let nudgeTimer: NodeJS.Timeout | undefined;

  const arm = (wait: number) => {
    clearTimeout(timer);
    if (!active) return;
    timer = setTimeout(() => void run().catch(() => undefined), wait);
    timer.unref();
  };
  const pass = async (): Promise<number> => {
    if (stopped) return 0;
    lastPass = performance.now();
    publishing = true;
    try {
      const published = await publishDue(db);
      if (published) logger.info({ published }, 'published scheduled posts');
      publishing = false;
      next = await nextDue(db);
      arm(waitFor(next, now().getTime()));
      return published;
    } catch (err) {
      logger.error({ err }, 'publishing scheduled posts failed');
      arm(RETRY_MS);
      throw err;
    } finally {
      publishing = false;
    }
  };
  const run = (): Promise<number> => {
    const result = chain.then(pass);
    chain = result.catch(() => undefined);
    return result;
  };
  // the publications' own writes need no pass: the pass that made them looks for the next date after them
  const nudge = (announced: readonly Announced[]) => {
    if (!active || publishing || nudged || !announced.some(schedules)) return;
    const wait = Math.max(0, lastPass + NUDGE_GAP_MS - performance.now());
    nudged = new Promise<void>((resolve) => {
      nudgeTimer = setTimeout(() => {
        nudged = undefined;
        run().then(
          () => resolve(),
          () => resolve(),
        );
      }, wait);
      nudgeTimer.unref();
    });
  };
  const unsubscribe = afterWrites(db, nudge);
  if (loop) void run().catch(() => undefined);

  return {
    run,
    nextDate: () => next,
    settled: async () => {
      await nudged;
      await chain;
    },
    async stop() {
      stopped = true;
      active = false;
      unsubscribe();
      clearTimeout(timer);
      clearTimeout(nudgeTimer);
      nudged = undefined; // its pass will not run
      await chain;
    },
  };
}

/** Whether a write may have scheduled a post: it made or changed one of a kind that can be scheduled. */
function schedules({ resource, action }: Announced): boolean {
  return action !== 'deleted' && (SCHEDULED_KINDS as readonly string[]).includes(resource);
}
