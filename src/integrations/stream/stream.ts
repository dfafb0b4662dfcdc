/**
 * One open change stream: it reads the feed after its position through the change feed's own reader
 * (`changesAfter`, so it sees exactly what `GET /changes` shows the same caller) and writes each change as a
 * Server-Sent Event whose `id` is the change's cursor. Reads never overlap: a wake-up during a read makes one more
 * read after it. A client that does not read what it is sent is disconnected once its unread bytes pass the bound,
 * rather than buffered without end: it resumes from its last event id.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Session } from 'better-sse';
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

  constructor(
    req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly options: StreamOptions,
  ) {
    this.callerKey = options.callerKey;
    this.position = options.after;
    this.session = new Session(req, res, {
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
    if (!this.sentSinceTick) {
      void this.session
        .batch((buffer) => {
          buffer.comment('ping').dispatch();
        })
        .then(() => this.bounded());
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
      if (!this.bounded() || !page.hasMore) return;
    }
  }

  /** Whether the client keeps up; one that does not is disconnected. */
  private bounded(): boolean {
    if (this.closed) return false;
    if (this.res.writableLength <= this.options.maxBufferBytes) return true;
    this.options.metrics.dropped();
    this.end();
    this.res.destroy();
    return false;
  }

  private end(): void {
    if (this.closed) return;
    this.closed = true;
    this.options.metrics.closed();
    this.options.hub.leave(this);
  }
}
