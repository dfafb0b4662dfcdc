/**
 * Where an import reads from: a file, or an http(s) URL fetched without ever connecting to a non-public address
 * (src/outbound/guard.ts: the literal, every resolved address and the connected one, on every hop of a redirect)
 * unless the operator allows it explicitly.
 */
import fs from 'node:fs/promises';
import type http from 'node:http';
import { guardedRequest, type AddressGuard } from '../outbound/guard';

export interface FetchOptions {
  /** Allow private, loopback and every other non-public address (e.g. another instance on 127.0.0.1). */
  allowPrivate?: boolean;
  /** Largest body read, in bytes. */
  maxBytes?: number;
  timeoutMs?: number;
  headers?: Record<string, string>;
}

export class SourceError extends Error {}

const MAX_REDIRECTS = 5;

export function isUrl(source: string): boolean {
  return /^(https?|webcal):\/\//i.test(source);
}

/** The text of a file or URL (`webcal://` is read as `https://`). */
export async function readSource(source: string, options: FetchOptions = {}): Promise<string> {
  if (!isUrl(source)) return fs.readFile(source, 'utf8');
  return (await fetchText(source.replace(/^webcal:/i, 'https:'), options)).body;
}

/** GET of a URL, following up to five redirects, each hop a new guarded request. */
export async function fetchText(
  url: string,
  options: FetchOptions = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  let target = new URL(url);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const answer = await getOnce(target, options);
    const location = answer.headers.location;
    if (answer.status >= 300 && answer.status < 400 && location) {
      target = new URL(location, target);
      continue;
    }
    return answer;
  }
  throw new SourceError(`too many redirects from ${redacted(url)}`);
}

function getOnce(
  url: URL,
  options: FetchOptions,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new SourceError(`unsupported URL scheme ${url.protocol}`);
  const maxBytes = options.maxBytes ?? 50 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    const request = guardedRequest(
      url,
      {
        headers: { Accept: 'text/calendar, application/json;q=0.9, */*;q=0.5', ...options.headers },
        timeout: options.timeoutMs ?? 60_000,
      },
      importGuard(Boolean(options.allowPrivate)),
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes)
            request.destroy(new SourceError(`${redacted(url.href)} is larger than ${maxBytes} bytes`));
          else chunks.push(chunk);
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new SourceError(`${redacted(url.href)} did not answer in time`)));
    request.on('error', (err) =>
      reject(err instanceof SourceError ? err : new SourceError(`${redacted(url.href)}: ${err.message}`)),
    );
    request.end();
  });
}

/** The address policy of imports (src/outbound/guard.ts), with messages that say how to allow private targets. */
function importGuard(allowPrivate: boolean): AddressGuard {
  return {
    allowPrivate,
    refuse: (host, address) =>
      new SourceError(
        host === address
          ? `${host} is a private address (allow it with --allow-private)`
          : `${host} resolves to ${address}, a private address (allow it with --allow-private)`,
      ),
  };
}

/** A URL without its credentials or query, for messages. */
export function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}
