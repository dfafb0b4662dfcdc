/**
 * `GET /changes` (D52): the changes after an opaque cursor, oldest first, each with its record as the caller
 * reads it (or `deleted` without one). Retention prunes by the service clock and remembers how far it went, so a
 * cursor from before that point is 410 `rest_cursor_expired` rather than a silent gap.
 */
import type { Config } from '../config';
import type { Db } from '../db/types';
import { toNumber, utcAt } from '../db/dialect';
import { latestPosition, prunedThrough } from '../db/feed-position';
import { now } from '../domain/clock';
import { ApiError, invalidParam } from '../core/errors';
import type { Resource } from '../core/outbox';
import type { Reader } from '../core/reader';
import { readRecord, type WireRecord } from '../resources/records';

export { latestPosition };

const CURSOR_VERSION = 'c1';

export function encodeCursor(id: number): string {
  return Buffer.from(`${CURSOR_VERSION}:${id}`).toString('base64url');
}

/** The position in the feed a cursor names (400 `rest_invalid_param` naming `param` when it names none). */
export function decodeCursor(cursor: string, param = 'cursor'): number {
  const [version, id] = Buffer.from(cursor, 'base64url').toString('utf8').split(':');
  if (version !== CURSOR_VERSION || !/^\d{1,15}$/.test(id ?? '')) throw invalidParam(param, 'cursor_invalid');
  return Number(id);
}

interface ChangeRow {
  id: number | string;
  resource: Resource;
  record_id: number;
  action: 'created' | 'updated' | 'deleted';
  modified_utc: string;
}

/** Deletes the changes older than the retention and moves the feed's horizon past them. */
export async function pruneChanges(db: Db, config: Readonly<Config>): Promise<void> {
  const cutoff = utcAt(now().getTime() - config.changesRetentionDays * 86_400_000);
  const old = await db('changes').where('modified_utc', '<', cutoff).max('id as id').first();
  if (old?.id === null || old?.id === undefined) return;
  const through = toNumber(old.id);
  await db.transaction(async (trx) => {
    await trx('change_feed')
      .where({ id: 1 })
      .andWhere('pruned_through', '<', through)
      .update({ pruned_through: through });
    await trx('changes').where('id', '<=', through).delete();
  });
}

/** 410 `rest_cursor_expired` when retention has pruned changes after `after`. */
export async function assertRetained(db: Db, after: number): Promise<void> {
  if (after < (await prunedThrough(db))) throw new ApiError(410, 'rest_cursor_expired', 'cursor_expired');
}

export async function readChanges(
  reader: Reader,
  db: Db,
  config: Readonly<Config>,
  cursor: string | undefined,
  limit: number,
) {
  await pruneChanges(db, config);
  if (cursor === undefined)
    return { changes: [], next_cursor: encodeCursor(await latestPosition(db)), has_more: false };
  const after = decodeCursor(cursor);
  await assertRetained(db, after);
  const page = await changesAfter(reader, db, after, limit);
  return { changes: page.changes, next_cursor: encodeCursor(page.last), has_more: page.hasMore };
}

/** One feed item, as `GET /changes` and the change stream carry it. */
export type WireChange = Awaited<ReturnType<typeof wireChange>>;

/**
 * Up to `limit` changes after position `after`, oldest first, each as `reader` may see it (the one place that
 * decides what a caller sees of the feed: `GET /changes` and the change stream both read through it).
 */
export async function changesAfter(reader: Reader, db: Db, after: number, limit: number) {
  const rows = (await db('changes')
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit + 1)) as ChangeRow[];
  const page = rows.slice(0, limit);
  // every change shows its record's current state, so a record changed several times in a page is read once
  const records = new Map<string, Promise<WireRecord | undefined>>();
  const current = (row: ChangeRow) => {
    const key = `${row.resource}:${row.record_id}`;
    if (!records.has(key)) records.set(key, readRecord(reader, row.resource, toNumber(row.record_id)));
    return records.get(key) as Promise<WireRecord | undefined>;
  };
  const changes = [];
  for (const row of page) changes.push(await wireChange(row, current));
  const last = page.length ? toNumber(page[page.length - 1].id) : after;
  return { changes, last, hasMore: rows.length > limit };
}

async function wireChange(row: ChangeRow, current: (row: ChangeRow) => Promise<WireRecord | undefined>) {
  const head = {
    cursor: encodeCursor(toNumber(row.id)),
    resource: row.resource,
    id: toNumber(row.record_id),
    modified_utc: row.modified_utc,
  };
  const record = row.action === 'deleted' ? undefined : await current(row);
  return record ? { ...head, action: row.action, record } : { ...head, action: 'deleted' as const };
}
