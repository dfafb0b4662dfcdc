/**
 * Conditional reads and cache headers. Every successful GET carries a strong ETag over its body, the caller and
 * the language, so `If-None-Match` answers 304 without a body (Express does the comparison in `res.send`).
 * Anonymous answers may be cached publicly for a short while; authenticated ones never.
 */
import { createHash } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { caller } from './auth';
import { context } from './context';
import { requestLanguage } from './language';

export const conditionalReads: RequestHandler = (req, res, next) => {
  const maxAge = context(req).config.cacheMaxAge;
  res.setHeader('Vary', 'Authorization');
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Cache-Control', 'no-store');
    return next();
  }
  const send = res.send.bind(res);
  res.send = (body?: unknown) => {
    const who = caller(req); // known once authentication has run
    if (res.statusCode === 200 && (typeof body === 'string' || Buffer.isBuffer(body))) {
      const hash = createHash('sha256').update(`${who?.id ?? 0}|${requestLanguage(req)}|`).update(body).digest('base64url');
      res.setHeader('ETag', `"${hash.slice(0, 32)}"`);
      // `res.locals.noStore`: answers that must never be reused (the change feed moves on every write)
      res.setHeader('Cache-Control', who || !maxAge || res.locals.noStore ? 'no-store' : `public, max-age=${maxAge}`);
    } else {
      res.setHeader('Cache-Control', 'no-store');
    }
    return send(body);
  };
  next();
};

/** `Last-Modified` of a single record, from its UTC modification time (`YYYY-MM-DD HH:MM:SS`). */
export function lastModified(res: Response, modifiedUtc: string): void {
  const date = new Date(`${modifiedUtc.replace(' ', 'T')}Z`);
  if (!Number.isNaN(date.getTime())) res.setHeader('Last-Modified', date.toUTCString());
}
