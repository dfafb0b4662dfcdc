/**
 * One POST to a receiver: connected to checked addresses only (see address.ts), no redirects followed (a 3xx is
 * just a failed attempt), the whole exchange bounded by the timeout, the first 1 KB of the answer kept.
 */
import type { ClientRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import { guardedRequest } from '../../outbound/guard';
import { deliveryGuard } from './address';

export const ANSWER_LIMIT = 1024;

export interface AttemptResult {
  status: number | null;
  durationMs: number;
  responseBody: string | null;
  error: string | null;
}

export async function post(
  target: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  allowPrivate: boolean,
): Promise<AttemptResult> {
  const started = performance.now(); // elapsed time: the process's monotonic clock
  const elapsed = () => Math.round(performance.now() - started);
  const url = new URL(target);
  return new Promise<AttemptResult>((resolve) => {
    let req: ClientRequest;
    try {
      req = guardedRequest(
        url,
        { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
        deliveryGuard(allowPrivate),
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            if (size < ANSWER_LIMIT) chunks.push(chunk);
            size += chunk.length;
          });
          res.on('end', () => done(res.statusCode ?? null, null, chunks));
          res.on('error', (err) => done(res.statusCode ?? null, err.message, chunks));
        },
      );
    } catch (err) {
      resolve({ status: null, durationMs: elapsed(), responseBody: null, error: (err as Error).message });
      return; // a literal address refused: nothing was sent
    }
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    let finished = false;
    const done = (status: number | null, error: string | null, chunks: Buffer[] = []) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      const text = chunks.length ? Buffer.concat(chunks).subarray(0, ANSWER_LIMIT).toString('utf8') : null;
      resolve({ status, durationMs: elapsed(), responseBody: text, error });
    };
    req.on('error', (err) => done(null, err.message));
    req.end(body);
  });
}
