/**
 * `If-Match` and `If-Unmodified-Since` on updates and deletes (RFC 9110 §13.1.1, §13.1.4): a write that names the
 * version it read is refused with 412 `rest_precondition_failed` when the record changed since, and writes nothing.
 * The headers are read in `http/preconditions.ts`; this is the check against the record's row.
 *
 * The version: every post and term has a counter raised by each update (`version`). A single read's ETag is
 * `"<id>-<version>.<digest>"`: the version tag, then the digest of the answer, caller and language (http/caching.ts),
 * which keeps `If-None-Match` exact for what that caller saw. `If-Match` compares the version tag only (the part
 * before the dot), so an ETag read in any language, by any caller, is the same version; the 412 answer sends the
 * record's current ETag (as its GET gives it to the caller), usable as is in the next `If-Match`.
 *
 * The check runs inside the write's transaction, on the row locked (`FOR UPDATE` on PostgreSQL; SQLite has one
 * writer, and the service's single connection runs one transaction at a time), so there is no window between the
 * check and the write on either engine or across nodes. Writes without the headers run no extra query.
 */
import type { Knex } from 'knex';
import type { Executor } from '../db/types';
import { utcTextToMs } from '../db/dialect';
import { forUpdate } from '../db/dialects/locks';
import type { Declared } from '../kinds/registry';
import { ApiError } from './errors';

export interface Precondition {
  /** Version tags the write accepts, or `*` (any existing version). */
  ifMatch?: string[] | '*';
  /** Refuse when the record was modified after this instant (seconds precision). */
  ifUnmodifiedSince?: Date;
}

/** The tables whose rows carry a version: those the record kinds name (src/kinds/), posts and terms today. */
export type VersionedTable = Declared<'versionedTable'>;

/** The version tag of a record: its id and its counter. */
export function versionTag(row: { id: number; version: number }): string {
  return `${row.id}-${row.version}`;
}

/** The version tag a record has now (after a write: the one its answer names), or undefined when it is gone. */
export async function currentVersionTag(db: Executor, table: VersionedTable, id: number): Promise<string | undefined> {
  const row = (await db(table).where({ id }).first('id', 'version')) as { id: number; version: unknown } | undefined;
  return row && versionTag({ id: Number(row.id), version: Number(row.version) });
}

/**
 * In the write's transaction, before writing: locks the record's row and checks the precondition against it.
 * A record that is gone is left to the caller's own not-found handling.
 */
export async function assertPrecondition(
  trx: Knex.Transaction,
  table: VersionedTable,
  id: number,
  expect: Precondition | undefined,
): Promise<void> {
  if (!expect) return;
  const query = trx(table).where({ id }).first('id', 'version', 'modified_utc');
  forUpdate(trx, query);
  const row = (await query) as { id: number; version: number | string; modified_utc: string } | undefined;
  if (!row) return;
  const tag = versionTag({ id: Number(row.id), version: Number(row.version) });
  if (!holds(expect, tag, row.modified_utc)) throw new PreconditionFailed(table, Number(row.id), tag);
}

/**
 * 412 `rest_precondition_failed`, naming the record: the HTTP layer replaces `data.etag` (the version alone here)
 * with the whole ETag the record's GET gives the caller (http/caching.ts), so one record has one ETag everywhere.
 */
export class PreconditionFailed extends ApiError {
  constructor(
    readonly table: VersionedTable,
    readonly id: number,
    tag: string,
  ) {
    super(412, 'rest_precondition_failed', 'precondition_failed', {}, { etag: `"${tag}"` });
  }
}

function holds(expect: Precondition, tag: string, modifiedUtc: string): boolean {
  if (expect.ifMatch !== undefined) return expect.ifMatch === '*' || expect.ifMatch.includes(tag);
  const modified = utcTextToMs(modifiedUtc);
  return !(expect.ifUnmodifiedSince && modified > expect.ifUnmodifiedSince.getTime());
}
