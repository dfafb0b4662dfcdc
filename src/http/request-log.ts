/**
 * One log line per request, built only when the level is on: id, method, URL (query passwords masked), status and
 * time. The same names are never copied into an answer's URLs (http/paging.ts) and make it `no-store`. The request
 * id (the caller's `X-Request-Id` when well-formed, else a fresh UUID) is sent back, and `req.log` is a child logger
 * carrying it, made on first use (errors), never per request: pino-http's per-request child serialised the request
 * eagerly, ~30 µs of every answer even with the line itself switched off.
 */
import { randomUUID } from 'node:crypto';
import type { Express, Request } from 'express';
import type { Logger } from '../logger';

declare module 'http' {
  interface IncomingMessage {
    id: string;
    log: Logger;
  }
}

const REQUEST_ID = /^[\w.-]{1,64}$/;

export function useRequestLog(app: Express, logger: Logger): void {
  // on the app's request prototype: nothing is added to each request object
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: Request & { [CHILD]?: Logger }) {
      return (this[CHILD] ??= logger.child({ req: describe(this.method, this.originalUrl, this.id) }));
    },
  });
  app.use((req, res, next) => {
    const started = performance.now();
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.id = id;
    res.setHeader('X-Request-Id', id);
    res.once('finish', () => {
      const level = res.statusCode >= 500 ? 'error' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          req: describe(req.method, req.originalUrl, id),
          res: { statusCode: res.statusCode },
          responseTime: Math.round(performance.now() - started),
        },
        'request completed',
      );
    });
    next();
  });
}

const CHILD = Symbol('request logger');

function describe(method: string | undefined, url: string | undefined, id: string) {
  return { id, method, url: maskSecrets(url ?? '') };
}

/** Query parameters whose value is masked, whatever the case, encoding or `[]` suffix of their name. */
const SECRET_NAMES = new Set(['password', 'pass', 'pwd', 'key']);

export function maskSecrets(url: string): string {
  const question = url.indexOf('?');
  if (question < 0) return url;
  const pairs = url.slice(question + 1).split('&');
  return `${url.slice(0, question + 1)}${pairs.map(maskPair).join('&')}`;
}

function maskPair(pair: string): string {
  const name = nameOf(pair);
  return isSecretName(name) ? `${name}=[redacted]` : pair;
}

/** Whether a URL's query carries a secret (a parameter `maskSecrets` masks): its answer must never be shared. */
export function carriesSecret(url: string): boolean {
  const question = url.indexOf('?');
  return (
    question >= 0 &&
    url
      .slice(question + 1)
      .split('&')
      .some((pair) => isSecretName(nameOf(pair)))
  );
}

function nameOf(pair: string): string {
  const equals = pair.indexOf('=');
  return equals < 0 ? pair : pair.slice(0, equals);
}

/**
 * The query parser decodes a name once (`%70assword` is `password` to the handlers); a proxy in front may decode
 * again, so names are decoded until they stop changing. Any bracketed part counts (`pwd[]`, `key[0]`, `a[pass]`).
 */
export function isSecretName(raw: string): boolean {
  let name = raw.replace(/\+/g, ' ');
  for (let i = 0; i < 5; i++) {
    const decoded = safeDecode(name);
    if (decoded === name) break;
    name = decoded;
  }
  return name
    .toLowerCase()
    .split(/[[\]]/)
    .some((part) => SECRET_NAMES.has(part.trim()));
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    // a stray `%` makes the whole name undecodable: decode the escapes that are well-formed
    return text.replace(/%[0-9a-f]{2}/gi, (hex) => String.fromCharCode(Number.parseInt(hex.slice(1), 16)));
  }
}
