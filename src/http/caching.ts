/**
 * Conditional reads and cache headers. Every successful GET carries a strong ETag, so `If-None-Match` answers 304
 * without a body (Express does the comparison in `res.send`). A single record's ETag is `"<id>-<version>.<state>"`:
 * the record's version (what `If-Match` names, http/preconditions.ts) and an HMAC, under the service's secret
 * (db/service-secret.ts), of the data version (db/data-version.ts), the caller, the language, the host, the URL and
 * the representation `Accept` selects, which are everything its answer depends on. Write answers carry the ETag of
 * the record they wrote (`writtenRecord`). While the data version stands, nothing changed, so a 304 is decided from the
 * `<state>` part alone, before validating, loading or rendering anything. Other reads (lists depend on the clock too:
 * the default window) hash their body, the caller and the language.
 * Anonymous answers may be cached publicly for a short while; authenticated ones never.
 */
import { createHash, createHmac } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { caller } from './auth';
import { context } from './context';
import { requestLanguage } from './language';
import { baseUrl, type RequestLike } from './urls';
import { dataVersion } from '../db/data-version';
import { serviceSecret } from '../db/service-secret';
import { currentVersionTag, versionTag, type VersionedTable } from '../core/preconditions';

export const conditionalReads: RequestHandler = (req, res, next) => {
  const maxAge = context(req).config.cacheMaxAge;
  res.setHeader('Vary', 'Authorization, Accept'); // JSON or text/calendar (src/feeds/ical)
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Cache-Control', 'no-store');
    return next();
  }
  const send = res.send.bind(res);
  res.send = (body?: unknown) => {
    const who = caller(req); // known once authentication has run
    if (res.statusCode === 200 && (typeof body === 'string' || Buffer.isBuffer(body))) {
      const state = res.locals.stateTag as string | undefined;
      const version = res.locals.version as string | undefined;
      res.setHeader(
        'ETag',
        state ? `"${version ? `${version}.` : ''}${state}"` : bodyTag(who?.id, requestLanguage(req), body),
      );
      // `res.locals.noStore`: answers that must never be reused (the change feed moves on every write)
      cacheable(res, who, res.locals.noStore ? 0 : maxAge);
    } else {
      res.setHeader('Cache-Control', 'no-store');
    }
    return send(body);
  };
  next();
};

/**
 * Before validation, on single-record reads: the state part of the ETag, and a 304 at once when the caller holds a
 * tag with it. The data version is read before the record, so an answer is never newer than its tag claims.
 */
export const versionedRead: RequestHandler = async (req, res, next) => {
  const { db, config } = context(req);
  const who = caller(req);
  const version = await dataVersion(db);
  const state = stateTag(await serviceSecret(db), version, req);
  res.locals.stateTag = state;
  const held = req.headers['if-none-match']
    ?.split(/\s*,\s*/)
    .find((tag) => tag.endsWith(`.${state}"`) || tag === `"${state}"`);
  if (held) {
    res.setHeader('ETag', held);
    cacheable(res, who, config.cacheMaxAge);
    res.status(304).end();
    return;
  }
  next();
};

/**
 * Keyed with the service's secret (shared by every node, so a 304 holds across them): everything else it covers can
 * be guessed, and an unkeyed hash would give the data version away to anyone trying small numbers, and with it
 * when drafts and private records are written.
 */
function stateTag(secret: Buffer, version: number, req: AnyRequest, url = req.originalUrl): string {
  const parts = [version, caller(req)?.id ?? 0, requestLanguage(req), baseUrl(req), url, representation(req)];
  const text = parts.join('|');
  return `v${createHmac('sha256', secret).update(text).digest('base64url').slice(0, 31)}`;
}

/** What a tag reads of a request (any typed request will do). */
type AnyRequest = RequestLike & Pick<Request, 'headers'>;

/** Which answer `Accept` selects (src/feeds/ical): the tag names it, not the header's exact text. */
function representation(req: { headers: { accept?: string } }): string {
  return /text\/calendar/i.test(req.headers.accept ?? '') ? 'calendar' : 'json';
}

/**
 * The ETag of a write's answer (updates and creates of one record, D70): the one the record's next GET by the
 * same caller gets, usable as is in `If-Match`. `url`: the GET's URL (by default the write's own, as for an update
 * on `/events/{id}`; a create names its record's). Call after the write committed and before the answer's record
 * is read, as a read does, so that the tag never claims an answer newer than it is.
 */
export async function writtenRecord(
  req: AnyRequest,
  res: Response,
  table: VersionedTable,
  id: number,
  url = req.originalUrl,
): Promise<void> {
  const { db } = context(req);
  const version = await dataVersion(db);
  const tag = await currentVersionTag(db, table, id);
  if (tag) res.setHeader('ETag', `"${tag}.${stateTag(await serviceSecret(db), version, req, url)}"`);
}

/** A single record's `Last-Modified`, and its version for the ETag. */
export function singleRecord(res: Response, row: { id: number; version: number; modified_utc: string }): void {
  res.locals.version = versionTag(row);
  lastModified(res, row.modified_utc);
}

function bodyTag(callerId: number | undefined, language: string, body: string | Buffer): string {
  return `"${createHash('sha256')
    .update(`${callerId ?? 0}|${language}|`)
    .update(body)
    .digest('base64url')
    .slice(0, 32)}"`;
}

function cacheable(res: Response, who: unknown, maxAge: number): void {
  res.setHeader('Cache-Control', who || !maxAge ? 'no-store' : `public, max-age=${maxAge}`);
}

/** `Last-Modified` of a single record, from its UTC modification time (`YYYY-MM-DD HH:MM:SS`). */
export function lastModified(res: Response, modifiedUtc: string): void {
  const date = new Date(`${modifiedUtc.replace(' ', 'T')}Z`);
  if (!Number.isNaN(date.getTime())) res.setHeader('Last-Modified', date.toUTCString());
}
