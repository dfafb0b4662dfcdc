/**
 * One open change stream: it reads the feed after its position through the change feed's own reader
 * (`changesAfter`, so it sees exactly what `GET /changes` shows the same caller) and writes each change as a
 * Server-Sent Event whose `id` is the change's cursor. Reads never overlap: a wake-up during a read makes one more
 * read after it. Backpressure: past a page whose bytes the client has not taken (unread bytes over the bound), the
 * stream reads no further until they drain; a client that does not drain them within a heartbeat interval is
 * disconnected rather than buffered without end, and resumes from its last event id.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeHttp1Connection, Session } from 'better-sse';
import type { Db } from '../../db/types';
import type { Reader } from '../../core/reader';
import { changesAfter } from '../changes';
import type { StreamHub, Subscriber } from './hub';
import type { StreamMetrics } from './metrics';

/** Changes read from the feed at a time. */
const PAGE = 100;
/** What a client's `EventSource` waits before reconnecting (the `retry` field). */
const RETRY_MS = 2000;

export interface StreamOptions {
  reader: Reader;
  db: Db;
  hub: StreamHub;
  metrics: StreamMetrics;
  callerKey: string;
  /** The feed position the stream starts after. */
  after: number;
  maxBufferBytes: number;
  /** How long a client may leave the bound passed before it is dropped (the heartbeat interval). */
  drainMs: number;
}

export class ChangeStream implements Subscriber {
  readonly callerKey: string;
  private readonly session: Session;
  private position: number;
  private reading: Promise<void> | undefined;
  private readAgain = false;
  private sentSinceTick = false;
  private closed = false;
  private ready = false;
  private overAtTick = false;

  constructor(
    req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly options: StreamOptions,
  ) {
    this.callerKey = options.callerKey;
    this.position = options.after;
    const connection = new NodeHttp1Connection(req, res);
    // better-sse reads parameters of its own (`padding`, `evs_preamble`, `lastEventId`); the spec declares none
    for (const name of [...connection.url.searchParams.keys()]) connection.url.searchParams.delete(name);
    this.session = new Session(connection, {
      keepAlive: null, // the hub's one timer sends the heartbeats
      retry: RETRY_MS,
      trustClientEventId: false, // the handler has read and checked Last-Event-ID already
    });
    // counted at once, so that the limits hold for requests arriving together; woken once the head is sent
    options.hub.join(this);
    options.metrics.opened();
    this.session.once('disconnected', () => this.end());
    this.session.once('connected', () => {
      this.ready = true;
      this.wake(); // whatever the feed holds after the start position
    });
  }

  wake(): void {
    if (this.closed || !this.ready) return;
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = this.read()
      .catch(() => this.close()) // the database is away or the cursor expired: the client reconnects
      .finally(() => {
        this.reading = undefined;
        if (this.readAgain) {
          this.readAgain = false;
          this.wake();
        }
      });
  }

  tick(): void {
    if (this.closed || !this.ready) return;
    this.bounded();
    if (!this.closed && !this.sentSinceTick) {
      void this.session
        .batch((buffer) => {
          buffer.comment('ping').dispatch();
        })
        .catch(() => undefined);
    }
    this.sentSinceTick = false;
  }

  close(): void {
    if (this.closed) return;
    this.end();
    this.res.end();
  }

  private async read(): Promise<void> {
    for (;;) {
      const page = await changesAfter(this.options.reader, this.options.db, this.position, PAGE);
      if (this.closed) return;
      if (page.changes.length) {
        await this.session.batch((buffer) => {
          for (const change of page.changes) buffer.push(change, 'change', change.cursor);
        });
        this.sentSinceTick = true;
        this.options.metrics.sent(page.changes.length);
      }
      this.position = page.last;
      if (!(await this.drained()) || !page.hasMore) return;
    }
  }

  /** Whether the client's unread bytes are within the bound, or drain below it within `drainMs`; else it is dropped. */
  private async drained(): Promise<boolean> {
    if (this.closed) return false;
    if (this.res.writableLength <= this.options.maxBufferBytes) return true;
    const drained = await new Promise<boolean>((resolve) => {
      const done = (result: boolean) => {
        clearTimeout(timer);
        this.res.off('drain', onDrain);
        this.res.off('close', onClose);
        resolve(result);
      };
      const onDrain = () => done(true);
      const onClose = () => done(false);
      const timer = setTimeout(() => done(false), this.options.drainMs);
      this.res.on('drain', onDrain);
      this.res.on('close', onClose);
    });
    if (drained || this.closed) return drained && !this.closed;
    this.drop();
    return false;
  }

  /** A client that left the bound passed from one heartbeat tick to the next (a whole interval) is dropped. */
  private bounded(): void {
    const over = this.res.writableLength > this.options.maxBufferBytes;
    if (over && this.overAtTick && !this.reading) this.drop();
    this.overAtTick = over;
  }

  private drop(): void {
    this.options.metrics.dropped();
    this.end();
    this.res.destroy();
  }

  private end(): void {
    if (this.closed) return;
    this.closed = true;
    this.options.metrics.closed();
    this.options.hub.leave(this);
  }
}
