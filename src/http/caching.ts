/**
 * Conditional reads and cache headers. Every successful GET carries a strong ETag, so `If-None-Match` answers 304
 * without a body (Express does the comparison in `res.send`). Single-record reads take theirs from the data
 * version (db/data-version.ts), the caller, the language, the host and the URL, which are everything their answer
 * depends on: a 304 is then decided before validating, loading or rendering anything. Other reads (lists depend on
 * the clock too: the default window) hash their body, the caller and the language.
 * Anonymous answers may be cached publicly for a short while; authenticated ones never.
 */
import { createHash } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { caller } from './auth';
import { context } from './context';
import { requestLanguage } from './language';
import { baseUrl } from './urls';
import { dataVersion } from '../db/data-version';

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
      res.setHeader('ETag', (res.locals.versionTag as string | undefined) ?? bodyTag(who?.id, requestLanguage(req), body));
      cacheable(res, who, maxAge);
    } else {
      res.setHeader('Cache-Control', 'no-store');
    }
    return send(body);
  };
  next();
};

/**
 * Before validation, on single-record reads: the ETag from the data version, and a 304 at once when the caller
 * holds it. The version is read before the record, so an answer is never newer than the tag it carries claims.
 */
export const versionedRead: RequestHandler = async (req, res, next) => {
  const { db, config } = context(req);
  const who = caller(req);
  const version = await dataVersion(db);
  const tag = `"v${createHash('sha256').update(`${version}|${who?.id ?? 0}|${requestLanguage(req)}|${baseUrl(req)}|${req.originalUrl}`)
    .digest('base64url').slice(0, 31)}"`;
  res.locals.versionTag = tag;
  if (req.headers['if-none-match']?.split(/\s*,\s*/).includes(tag)) {
    res.setHeader('ETag', tag);
    cacheable(res, who, config.cacheMaxAge);
    res.status(304).end();
    return;
  }
  next();
};

function bodyTag(callerId: number | undefined, language: string, body: string | Buffer): string {
  return `"${createHash('sha256').update(`${callerId ?? 0}|${language}|`).update(body).digest('base64url').slice(0, 32)}"`;
}

function cacheable(res: Response, who: unknown, maxAge: number): void {
  res.setHeader('Cache-Control', who || !maxAge ? 'no-store' : `public, max-age=${maxAge}`);
}

/** `Last-Modified` of a single record, from its UTC modification time (`YYYY-MM-DD HH:MM:SS`). */
export function lastModified(res: Response, modifiedUtc: string): void {
  const date = new Date(`${modifiedUtc.replace(' ', 'T')}Z`);
  if (!Number.isNaN(date.getTime())) res.setHeader('Last-Modified', date.toUTCString());
}
