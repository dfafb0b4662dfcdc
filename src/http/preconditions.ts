/**
 * `If-Match` and `If-Unmodified-Since` on updates and deletes (RFC 9110 §13.1.1, §13.1.4): a write that names the
 * version it read is refused with 412 `rest_precondition_failed` when the record changed since, and writes nothing.
 *
 * The version: every post and term has a counter raised by each update (`version`). A single read's ETag is
 * `"<id>-<version>.<digest>"`: the version tag, then the digest of the answer, caller and language (http/caching.ts),
 * which keeps `If-None-Match` exact for what that caller saw. `If-Match` compares the version tag only (the part
 * before the dot), so an ETag read in any language, by any caller, is the same version; the 412 answer sends the
 * current tag as its `ETag`, usable as is in the next `If-Match`.
 *
 * The check runs inside the write's transaction, on the row locked (`FOR UPDATE` on PostgreSQL; SQLite has one
 * writer, and the service's single connection runs one transaction at a time), so there is no window between the
 * check and the write on either engine or across nodes. Cost per request: reading two headers of write requests;
 * writes without them run no extra query.
 */
import type { Request } from 'express';
import type { Knex } from 'knex';
import { isPostgres, utcTextToMs } from '../db/dialect';
import { ApiError } from './errors';

export interface Precondition {
  /** Version tags the write accepts, or `*` (any existing version). */
  ifMatch?: string[] | '*';
  /** Refuse when the record was modified after this instant (seconds precision). */
  ifUnmodifiedSince?: Date;
}

/** The request's precondition, or undefined when it sent none (the common case: no query, no lock). */
export function precondition(req: Pick<Request, 'headers'>): Precondition | undefined {
  const match = req.headers['if-match'];
  const since = req.headers['if-unmodified-since'];
  if (match === undefined && since === undefined) return undefined;
  if (match !== undefined) return { ifMatch: parseIfMatch(match) };
  // RFC 9110: If-Unmodified-Since is ignored when If-Match is present, and when it is not a valid date
  const date = new Date(since as string);
  return Number.isNaN(date.getTime()) ? undefined : { ifUnmodifiedSince: date };
}

function parseIfMatch(header: string): string[] | '*' {
  if (header.trim() === '*') return '*';
  return header
    .split(',')
    .map((tag) => versionOf(tag.trim().replace(/^W\//, '').replace(/^"|"$/g, '')))
    .filter(Boolean);
}

/** The version part of an entity tag: `12-3.abc…` → `12-3`. */
function versionOf(tag: string): string {
  const dot = tag.indexOf('.');
  return dot < 0 ? tag : tag.slice(0, dot);
}

/** The version tag of a record: its id and its counter. */
export function versionTag(row: { id: number; version: number }): string {
  return `${row.id}-${row.version}`;
}

/**
 * In the write's transaction, before writing: locks the record's row and checks the precondition against it.
 * `table` is `posts` or `terms`; a record that is gone is left to the caller's own not-found handling.
 */
export async function assertPrecondition(
  trx: Knex.Transaction,
  table: 'posts' | 'terms',
  id: number,
  expect: Precondition | undefined,
): Promise<void> {
  if (!expect) return;
  const query = trx(table).where({ id }).first('id', 'version', 'modified_utc');
  if (isPostgres(trx)) query.forUpdate();
  const row = (await query) as { id: number; version: number | string; modified_utc: string } | undefined;
  if (!row) return;
  const tag = versionTag({ id: Number(row.id), version: Number(row.version) });
  if (!holds(expect, tag, row.modified_utc)) {
    throw new ApiError(412, 'rest_precondition_failed', 'precondition_failed', {}, { etag: `"${tag}"` });
  }
}

function holds(expect: Precondition, tag: string, modifiedUtc: string): boolean {
  if (expect.ifMatch !== undefined) return expect.ifMatch === '*' || expect.ifMatch.includes(tag);
  const modified = utcTextToMs(modifiedUtc);
  return !(expect.ifUnmodifiedSince && modified > expect.ifUnmodifiedSince.getTime());
}
