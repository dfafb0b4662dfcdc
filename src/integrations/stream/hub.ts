/**
 * One hub per database handle (per node): what all of its change streams share, so that an idle stream costs no
 * CPU and a wake-up costs one query however many streams are open.
 *
 * - Wake-up: this node's writes through the kernel (`afterWrites`, heard right after they commit) and other nodes'
 *   (db/dialects/change-signal.ts: PostgreSQL notifications, or SQLite's data version polled) make the hub read the
 *   feed's newest position once; only when it moved are the streams woken, each to read its own changes from the
 *   feed (the truth: a lost signal costs latency, never a change).
 * - Heartbeat: one timer; each tick pings the streams that sent nothing since the last one.
 * - Limits: open streams per caller and per node.
 * The watching, the timer and the listener connection exist only while a stream is open.
 */
import type { Config } from '../../config';
import type { Db } from '../../db/types';
import { watchChanges, type ChangeWatch } from '../../db/dialects/change-signal';
import { afterWrites } from '../../core/write';
import { latestPosition } from '../changes';

/** One open stream, as the hub sees it. */
export interface Subscriber {
  /** The caller's key for the per-caller limit. */
  readonly callerKey: string;
  /** The feed moved past what the hub saw before: read what is new. */
  wake(): void;
  /** A heartbeat tick: send a comment unless something was sent since the last tick. */
  tick(): void;
  /** The node is stopping: end the stream (the client reconnects elsewhere). */
  close(): void;
}

type Limits = Pick<Config, 'streamMaxPerCaller' | 'streamMaxOpen' | 'streamHeartbeatMs' | 'streamPollMs'>;

export type Refusal = 'caller' | 'node';

export class StreamHub {
  private readonly subscribers = new Set<Subscriber>();
  private readonly perCaller = new Map<string, number>();
  private position = 0;
  private watching: Promise<ChangeWatch | undefined> | undefined;
  private stopLocal: (() => void) | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  private checkAgain = false;
  /** The last listener connection or poller being stopped (awaited by `closeAll`). */
  private stopping: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly limits: Limits,
  ) {}

  get open(): number {
    return this.subscribers.size;
  }

  /** Why a new stream of this caller would pass a limit, or undefined when it may open. */
  refusal(callerKey: string): Refusal | undefined {
    if ((this.perCaller.get(callerKey) ?? 0) >= this.limits.streamMaxPerCaller) return 'caller';
    if (this.subscribers.size >= this.limits.streamMaxOpen) return 'node';
    return undefined;
  }

  /** Adds a stream (after `refusal` said it may open); the first one starts the wake-ups and the heartbeat. */
  join(subscriber: Subscriber): void {
    this.subscribers.add(subscriber);
    this.perCaller.set(subscriber.callerKey, (this.perCaller.get(subscriber.callerKey) ?? 0) + 1);
    if (this.subscribers.size === 1) this.start();
  }

  /** Removes a stream; the last one stops the wake-ups and the heartbeat. */
  leave(subscriber: Subscriber): void {
    if (!this.subscribers.delete(subscriber)) return;
    const left = (this.perCaller.get(subscriber.callerKey) ?? 1) - 1;
    if (left > 0) this.perCaller.set(subscriber.callerKey, left);
    else this.perCaller.delete(subscriber.callerKey);
    if (this.subscribers.size === 0) void this.stop();
  }

  /** Ends every stream (graceful shutdown). */
  async closeAll(): Promise<void> {
    for (const subscriber of [...this.subscribers]) subscriber.close();
    await this.stop();
  }

  /** Something may have been appended to the feed: read its newest position once, and wake streams if it moved. */
  signal = (): void => {
    if (this.checking) {
      this.checkAgain = true;
      return;
    }
    this.checking = this.check().finally(() => {
      this.checking = undefined;
      if (this.checkAgain) {
        this.checkAgain = false;
        this.signal();
      }
    });
  };

  private async check(): Promise<void> {
    let latest: number;
    try {
      latest = await latestPosition(this.db);
    } catch {
      return; // the database is away: the next signal looks again
    }
    if (latest <= this.position) return;
    this.position = latest;
    for (const subscriber of this.subscribers) subscriber.wake();
  }

  private start(): void {
    this.stopLocal = afterWrites(this.db, (announced) => {
      if (announced.length) this.signal();
    });
    const watching = watchChanges(this.db, this.signal, { pollMs: this.limits.streamPollMs }).catch(() => undefined);
    this.watching = watching;
    // a stream that joins while the hub starts reads from its own position; the hub learns the feed's from here
    void watching.then(() => this.signal());
    this.heartbeat = setInterval(() => {
      for (const subscriber of this.subscribers) subscriber.tick();
    }, this.limits.streamHeartbeatMs);
    this.heartbeat.unref();
  }

  private stop(): Promise<void> {
    this.stopLocal?.();
    this.stopLocal = undefined;
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    const watching = this.watching;
    this.watching = undefined;
    this.stopping = Promise.all([this.stopping, watching?.then((watch) => watch?.stop())]).then(() => undefined);
    return this.stopping;
  }
}

const hubs = new WeakMap<Db, StreamHub>();

/** The hub of this database handle (made on first use, with the limits of the first caller's configuration). */
export function hubOf(db: Db, limits: Limits): StreamHub {
  let hub = hubs.get(db);
  if (!hub) {
    hub = new StreamHub(db, limits);
    hubs.set(db, hub);
  }
  return hub;
}

/** The hub of this database handle if streams were ever opened on it. */
export function existingHub(db: Db): StreamHub | undefined {
  return hubs.get(db);
}
