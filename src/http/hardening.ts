/**
 * Security headers (helmet) and CORS. The API answers JSON only, so its pages may load nothing; the documentation
 * site needs its own scripts and styles. CORS exposes the paging and caching headers to browser clients.
 */
import cors from 'cors';
import helmet from 'helmet';
import type { RequestHandler } from 'express';
import type { Config } from '../config';

export const apiHeaders: RequestHandler = helmet({
  contentSecurityPolicy: { directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  crossOriginResourcePolicy: { policy: 'cross-origin' },
});

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
      'X-Request-Id',
      'X-WP-Nonce',
    ],
    exposedHeaders: EXPOSED,
    maxAge: 600,
  });
}
