/**
 * Where an import reads from: a file, or an http(s) URL fetched without ever connecting to a private, loopback or
 * link-local address (checked on every connection, redirects included, so DNS cannot point it inside) unless the
 * operator allows it explicitly.
 */
import fs from 'node:fs/promises';
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { LookupFunction } from 'node:net';

export interface FetchOptions {
  /** Allow private, loopback and link-local addresses (e.g. another instance on 127.0.0.1). */
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

/** GET of a URL, following up to five redirects, each connection checked by `guardedLookup`. */
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
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(literal) && !options.allowPrivate && isPrivateAddress(literal)) {
    throw new SourceError(`${literal} is a private address (allow it with --allow-private)`); // no lookup for literals
  }
  const maxBytes = options.maxBytes ?? 50 * 1024 * 1024;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(
      url,
      {
        lookup: guardedLookup(Boolean(options.allowPrivate)),
        headers: { Accept: 'text/calendar, application/json;q=0.9, */*;q=0.5', ...options.headers },
        timeout: options.timeoutMs ?? 60_000,
      },
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
  });
}

/** A `lookup` for http(s).get that refuses addresses inside the host's networks unless allowed. */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as dns.LookupAddress[];
      const refused = list.find((a) => !allowPrivate && isPrivateAddress(a.address));
      if (refused) {
        return callback(
          new SourceError(
            `${hostname} resolves to ${refused.address}, a private address (allow it with --allow-private)`,
          ),
          '',
          0,
        );
      }
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      return callback(null, list[0].address, list[0].family);
    });
  };
}

/** Loopback, private (RFC 1918, ULA), link-local, CGNAT, unspecified and IPv4-mapped forms of them. */
export function isPrivateAddress(address: string): boolean {
  if (net.isIPv4(address)) {
    const [a, b] = address.split('.').map(Number);
    return (
      a === 10 ||
      a === 127 ||
      a === 0 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127) ||
      a >= 224
    );
  }
  const lower = address.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return isPrivateAddress(mapped[1]);
  return lower === '::1' || lower === '::' || /^f[cd]/.test(lower) || /^fe[89ab]/.test(lower) || /^ff/.test(lower);
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
