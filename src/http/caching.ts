/**
 * Conditional reads and cache headers. Every successful GET carries a strong ETag, so `If-None-Match` answers 304
 * without a body. The ETag is an HMAC, under the service's secret (db/service-secret.ts), of the bytes the caller
 * gets, with the caller, the language and the representation `Accept` selects (docs/decisions.md D68, D122): it moves
 * when that answer moves, and with nothing else, so no write the caller cannot see shows in it. A single record's
 * ETag leads with the record's version, `"<id>-<version>.<mac>"` (what `If-Match` names, http/preconditions.ts); its
 * write answers and 412s carry the ETag its GET has (`writtenRecord`, `currentTagOn412`). Anonymous answers may be
 * cached publicly for a short while; authenticated ones, and those to a request carrying a credential in its query,
 * never.
 */
import type { Application, ErrorRequestHandler, RequestHandler, Response } from 'express';
import { keepAnswer, notModified, unchanged } from './answer-cache';
import { caller } from './auth';
import { context } from './context';
import { readerOf } from './reader';
import { answerTag, representation, viewerOf, type AnyRequest } from './tags';
import { carriesSecret } from './request-log';
import { serviceSecret } from '../db/service-secret';
import type { Reader } from '../core/reader';
import { PreconditionFailed, versionTag, type VersionedTable } from '../core/preconditions';

export const conditionalReads: RequestHandler = async (req, res, next) => {
  const { config, db } = context(req);
  const maxAge = config.cacheMaxAge;
  res.setHeader('Vary', 'Authorization, Accept'); // JSON or text/calendar (src/feeds/ical)
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Cache-Control', 'no-store');
    return next();
  }
  const secret = await serviceSecret(db);
  const send = res.send.bind(res);
  res.send = (body?: unknown) => {
    const who = caller(req); // known once authentication has run
    if (res.statusCode === 200 && (typeof body === 'string' || Buffer.isBuffer(body))) {
      const version = res.locals.version as string | undefined;
      const tag = answerTag(secret, viewerOf(req, representation(req)), version, body);
      res.setHeader('ETag', tag);
      // `res.locals.noStore`: answers that must never be reused (the change feed moves on every write)
      cacheable(res, who || carriesSecret(req.originalUrl), res.locals.noStore ? 0 : maxAge);
      keepAnswer(req, res, body, tag);
      if (unchanged(req, tag)) notModified(res); // `send` then leaves the body out
    } else {
      res.setHeader('Cache-Control', 'no-store');
    }
    return send(body);
  };
  next();
};

/** A record's single read as a reader gets it: its version tag and bytes (resources/records.ts), given by the app. */
export type SingleReadAnswer = (
  reader: Reader,
  table: VersionedTable,
  id: number,
) => Promise<{ version: string; bytes: Buffer } | undefined>;

/** Gives the tags of write answers and 412s the single reads they name (the app's composition knows the records). */
export function tagRecordsWith(app: Application, read: SingleReadAnswer): void {
  app.locals.singleReadAnswer = read;
}

/** A record's single read as one reader gets it (`SingleReadAnswer`'s answer). */
export type SingleRead = NonNullable<Awaited<ReturnType<SingleReadAnswer>>>;

/** The ETag the record's GET gives this caller now (JSON), or undefined when they may not read it or it is gone. */
async function currentTag(req: AnyRequest, table: VersionedTable, id: number): Promise<string | undefined> {
  const read = req.app.locals.singleReadAnswer as SingleReadAnswer;
  return tagOf(req, await read(readerOf(req), table, id));
}

async function tagOf(req: AnyRequest, answer: SingleRead | undefined): Promise<string | undefined> {
  if (!answer) return undefined;
  return answerTag(await serviceSecret(context(req).db), viewerOf(req, 'json'), answer.version, answer.bytes);
}

/**
 * The ETag of a write's answer (updates and creates of one record, D70): the one the record's next GET by the
 * same caller gets, usable as is in `If-Match`. Call after the write committed: the record is read and rendered from
 * one row, version and bytes alike.
 */
export async function writtenRecord(req: AnyRequest, res: Response, table: VersionedTable, id: number): Promise<void> {
  const tag = await currentTag(req, table, id);
  if (tag) res.setHeader('ETag', tag);
}

/** `writtenRecord` from the record's single read rendered by the caller (with the answer's body, from one read). */
export async function writtenRecordFrom(req: AnyRequest, res: Response, read: SingleRead | undefined): Promise<void> {
  const tag = await tagOf(req, read);
  if (tag) res.setHeader('ETag', tag);
}

/**
 * Before the error handler: a 412 names the record's ETag as its GET gives it to this caller (its `ETag` and
 * `data.etag`), one tag wherever the record's version appears; a caller who may not read it gets the version alone.
 */
export const currentTagOn412: ErrorRequestHandler = async (err, req, _res, next) => {
  if (err instanceof PreconditionFailed) {
    const tag = await currentTag(req, err.table, err.id).catch(() => undefined);
    if (tag) err.data.etag = tag;
  }
  next(err);
};

/** A single record's `Last-Modified`, and its version for the ETag. */
export function singleRecord(res: Response, row: { id: number; version: number; modified_utc: string }): void {
  res.locals.version = versionTag(row);
  lastModified(res, row.modified_utc);
}

function cacheable(res: Response, who: unknown, maxAge: number): void {
  res.setHeader('Cache-Control', who || !maxAge ? 'no-store' : `public, max-age=${maxAge}`);
}

/** `Last-Modified` of a single record, from its UTC modification time (`YYYY-MM-DD HH:MM:SS`). */
export function lastModified(res: Response, modifiedUtc: string): void {
  const date = new Date(`${modifiedUtc.replace(' ', 'T')}Z`);
  if (!Number.isNaN(date.getTime())) res.setHeader('Last-Modified', date.toUTCString());
}
