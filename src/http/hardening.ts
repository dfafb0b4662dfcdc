/**
 * Security headers (helmet) and CORS. The API answers JSON only, so its pages may load nothing; the documentation
 * site needs its own scripts and styles. CORS exposes the paging, caching and idempotency headers to browser
 * clients, and lets them send the conditional-write and idempotency headers.
 */
import cors from 'cors';
import helmet from 'helmet';
import type { Request, RequestHandler, Response } from 'express';
import type { Config } from '../config';

export const apiHeaders: RequestHandler = helmet({
  contentSecurityPolicy: { directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  crossOriginResourcePolicy: { policy: 'cross-origin' },
});

/**
 * The headers `apiHeaders` sets, read off helmet once. They govern how a document is shown or shared, so a 304,
 * which carries none, leaves them out (D151): a cache keeps those of the answer it revalidates.
 */
export const SECURITY_HEADERS: readonly string[] = headersSetBy(apiHeaders);

function headersSetBy(middleware: RequestHandler): string[] {
  const names: string[] = [];
  const res = { setHeader: (name: string) => names.push(name), removeHeader: () => undefined };
  void middleware({} as Request, res as unknown as Response, () => undefined);
  return names;
}

export const docsHeaders: RequestHandler = helmet.contentSecurityPolicy({
  directives: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'", "'unsafe-inline'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:', 'https:'],
    fontSrc: ["'self'", 'data:'],
    frameAncestors: ["'none'"],
    upgradeInsecureRequests: null, // a plain-HTTP deployment would otherwise load its scripts over https and fail
  },
});

const EXPOSED = [
  'X-TEC-Total',
  'X-TEC-TotalPages',
  'X-WP-Total',
  'X-WP-TotalPages',
  'Link',
  'ETag',
  'Last-Modified',
  'Content-Language',
  'X-Request-Id',
  'Retry-After',
  'Idempotent-Replayed',
];

/** CORS for the namespace: any origin by default (credentials travel in `Authorization`, not cookies), or a list. */
export function corsFor(config: Pick<Config, 'corsOrigins'>): RequestHandler {
  if (Array.isArray(config.corsOrigins) && config.corsOrigins.length === 0) return (_req, _res, next) => next();
  return cors({
    origin: config.corsOrigins,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: [
      'Authorization',
      'Content-Type',
      'If-None-Match',
      'If-Modified-Since',
      // conditional and idempotent writes (D48, D49) from browser clients on other origins
      'If-Match',
      'If-Unmodified-Since',
      'Idempotency-Key',
      'X-Request-Id',
      'X-WP-Nonce',
    ],
    exposedHeaders: EXPOSED,
    maxAge: 600,
  });
}
