/** The part of autocannon 8's API the runner uses (the package ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?(request: Request): Request;
  }

  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    /** Requests to send in all (instead of `duration`). */
    amount?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: Request[];
    warmup?: { connections?: number; duration?: number };
  }

  interface Histogram {
    average: number;
    p50: number;
    p99: number;
    [key: string]: number;
  }

  interface Result {
    requests: Histogram & { total: number; sent: number };
    latency: Histogram;
    non2xx: number;
    errors: number;
    timeouts: number;
    duration: number;
    statusCodeStats: Record<string, { count: number }>;
  }

  interface Instance extends EventEmitter, PromiseLike<Result> {
    /** (client, status, bytes, milliseconds) for every response of the measured run (not the warm-up). */
    on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): this;
  }

  function autocannon(options: Options): Instance;
  export = autocannon;
}
