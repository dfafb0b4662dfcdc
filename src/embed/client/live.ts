/**
 * Keeping the calendar current without a reload: the change stream (`{src}/changes/stream`, Server-Sent Events,
 * one change-feed entry per event) where the browser has EventSource and the service answers it; else, or once
 * the stream is refused (a 404 closes an EventSource for good), a poll of what the calendar shows, conditional on
 * its ETag, every `poll` seconds. Either way a change reaches the page as one call of `changed`, debounced.
 */
export interface LiveOptions {
  streamUrl: string;
  /** Seconds between polls in the fallback. */
  pollSeconds: number;
  /** Whether what the calendar shows has changed since it was read (the poll's question). */
  hasChanged(): Promise<boolean>;
  /** Refetch what the calendar shows. */
  changed(): void;
}

/** Event types a stream may name its messages with (an unnamed message is `message`). */
const STREAM_TYPES = ['message', 'change', 'created', 'updated', 'deleted'];
const DEBOUNCE_MS = 150;

export class Live {
  private source: EventSource | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private pending: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  /** How the calendar is being kept current now (a test and the demo read it from `data-live`). */
  mode: 'stream' | 'poll' | 'off' = 'off';

  constructor(
    private readonly options: LiveOptions,
    private readonly onMode: (mode: Live['mode']) => void = () => {},
  ) {}

  start(): void {
    this.stopped = false;
    if (typeof EventSource !== 'function') {
      this.poll();
      return;
    }
    let source: EventSource;
    try {
      source = new EventSource(this.options.streamUrl, { withCredentials: false });
    } catch {
      this.poll();
      return;
    }
    this.source = source;
    const onChange = () => this.debounced();
    for (const type of STREAM_TYPES) source.addEventListener(type, onChange);
    source.addEventListener('open', () => this.setMode('stream'));
    source.addEventListener('error', () => {
      // CONNECTING: the browser reconnects by itself (sending Last-Event-ID); CLOSED: refused, poll instead
      if (source.readyState === EventSource.CLOSED && !this.stopped) {
        source.close();
        this.source = undefined;
        this.poll();
      }
    });
  }

  stop(): void {
    this.stopped = true;
    this.source?.close();
    this.source = undefined;
    clearTimeout(this.timer);
    clearTimeout(this.pending);
    this.setMode('off');
  }

  private setMode(mode: Live['mode']): void {
    if (this.mode === mode) return;
    this.mode = mode;
    this.onMode(mode);
  }

  private debounced(): void {
    clearTimeout(this.pending);
    this.pending = setTimeout(() => this.options.changed(), DEBOUNCE_MS);
  }

  private poll(): void {
    this.setMode('poll');
    const tick = async () => {
      if (this.stopped) return;
      try {
        if (await this.options.hasChanged()) this.options.changed();
      } catch {
        /* offline for now: try again next time */
      }
      if (!this.stopped) this.timer = setTimeout(tick, this.options.pollSeconds * 1000);
    };
    this.timer = setTimeout(tick, this.options.pollSeconds * 1000);
  }
}
