/**
 * A small Server-Sent Events client for tests: `fetch` and a line parser (the `eventsource` package needs a newer
 * Node.js). Events and comments are collected as they arrive; `next` waits for the next event.
 */
export interface SseEvent {
  id?: string;
  event: string;
  data: string;
  /** `performance.now()` when its block was parsed. */
  at: number;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** The JSON body of a refused stream. */
  body?: unknown;
  events: SseEvent[];
  comments: string[];
  /** The next event not yet taken (waits up to `timeoutMs`). */
  next(timeoutMs?: number): Promise<SseEvent>;
  /** Resolves once a comment equal to `text` arrived. */
  comment(text: string, timeoutMs?: number): Promise<void>;
  /** Whether the server ended the stream. */
  ended: Promise<void>;
  close(): void;
}

export async function openStream(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { Accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let taken = 0;
  let notify: (() => void) | undefined;
  const changed = () => {
    notify?.();
    notify = undefined;
  };
  const waitFor = async (ready: () => boolean, timeoutMs: number, what: string) => {
    const deadline = performance.now() + timeoutMs;
    while (!ready()) {
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        notify = resolve;
        setTimeout(resolve, Math.min(left, 50));
      });
    }
  };
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
    const body = await res.json().catch(() => undefined);
    return {
      status: res.status,
      headers: res.headers,
      body,
      events,
      comments,
      next: () => Promise.reject(new Error('not a stream')),
      comment: () => Promise.reject(new Error('not a stream')),
      ended: Promise.resolve(),
      close: () => undefined,
    };
  }
  const ended = (async () => {
    const decoder = new TextDecoder();
    let pending = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        pending += decoder.decode(chunk, { stream: true });
        let end = pending.indexOf('\n\n');
        while (end >= 0) {
          parseBlock(pending.slice(0, end), events, comments);
          pending = pending.slice(end + 2);
          end = pending.indexOf('\n\n');
        }
        changed();
      }
    } catch {
      // aborted by the test, or dropped by the server
    }
    changed();
  })();
  return {
    status: res.status,
    headers: res.headers,
    events,
    comments,
    async next(timeoutMs = 5000) {
      await waitFor(() => events.length > taken, timeoutMs, `event ${taken + 1}`);
      return events[taken++];
    },
    comment: (text, timeoutMs = 5000) => waitFor(() => comments.includes(text), timeoutMs, `comment ${text}`),
    ended,
    close: () => abort.abort(),
  };
}

function parseBlock(block: string, events: SseEvent[], comments: string[]): void {
  const event: SseEvent = { event: 'message', data: '', at: performance.now() };
  let fields = 0;
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) {
      comments.push(line.slice(1).trim());
      continue;
    }
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (name === 'id') event.id = value;
    else if (name === 'event') event.event = value;
    else if (name === 'data') event.data = event.data ? `${event.data}\n${value}` : value;
    else continue;
    fields++;
  }
  if (fields && (event.data || event.id)) events.push(event);
}
