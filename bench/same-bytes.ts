/**
 * The same-bytes baseline: the service's answers for the URLs a scenario requests, captured once and
 * replayed from memory by stock Express (bench/same-bytes-server.js). Its throughput is what a perfect cache could
 * reach on this stack for those bytes.
 */
import fs from 'node:fs';

/** One captured answer, as the same-bytes server loads it. */
export interface Captured {
  method: string;
  /** Path and query, as the request line has it (Express's `req.originalUrl`). */
  url: string;
  status: number;
  headers: Record<string, string>;
  /** Base64 of the body's bytes. */
  body: string;
}

/**
 * Headers the stack computes per response (or per connection) on either side: the same-bytes server makes its own,
 * Express's default ETag among them.
 */
const COMPUTED = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'etag']);

export function replayHeaders(headers: Iterable<[string, string]>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of headers) if (!COMPUTED.has(name.toLowerCase())) kept[name] = value;
  return kept;
}

/**
 * The first `limit` distinct URLs of `draw` (a scenario's per-request path, which may pick at random), in the order
 * first seen, drawing at most `tries` times: a scenario on one URL gives that one.
 */
export function distinctUrls(draw: () => string, limit: number, tries = limit * 20): string[] {
  const seen = new Set<string>();
  for (let i = 0; i < tries && seen.size < limit; i++) seen.add(draw());
  return [...seen];
}

/** `100 × rps / baseline`, NaN without a baseline. */
export const percentOf = (rps: number, baseline: { rps: number } | undefined): number =>
  baseline ? (100 * rps) / baseline.rps : Number.NaN;

type Init = { method?: string; headers?: Record<string, string>; body?: () => string | undefined };

/**
 * Requests each URL once from the service (`init`: the scenario's method, headers and body), `concurrency` at a
 * time (a thousand cold lists one by one would take minutes at 1 M events), and keeps the answers, in order.
 */
export async function capture(port: number, urls: string[], init: Init, concurrency = 10): Promise<Captured[]> {
  const captured: Captured[] = [];
  for (let i = 0; i < urls.length; i += concurrency)
    captured.push(...(await Promise.all(urls.slice(i, i + concurrency).map((url) => captureOne(port, url, init)))));
  return captured;
}

async function captureOne(port: number, url: string, init: Init): Promise<Captured> {
  const method = init.method ?? 'GET';
  const response = await fetch(`http://127.0.0.1:${port}${url}`, {
    method,
    headers: init.headers,
    body: init.body?.(),
    signal: AbortSignal.timeout(60_000),
  });
  const body = Buffer.from(await response.arrayBuffer()).toString('base64');
  return { method, url, status: response.status, headers: replayHeaders(response.headers), body };
}

/** Writes `captured` to `file` and has the same-bytes server on `port` load it; resolves to how many it holds. */
export async function load(port: number, file: string, captured: Captured[]): Promise<number> {
  fs.writeFileSync(file, JSON.stringify(captured));
  const response = await fetch(`http://127.0.0.1:${port}/__same-bytes/load`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: file,
  });
  if (!response.ok) throw new Error(`the same-bytes server did not load ${file}: ${response.status}`);
  return ((await response.json()) as { loaded: number }).loaded;
}

/** Mean body size of the answers, bytes. */
export const meanBytes = (captured: Captured[]): number =>
  captured.reduce((sum, c) => sum + Buffer.byteLength(c.body, 'base64'), 0) / Math.max(1, captured.length);
