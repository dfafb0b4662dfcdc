/**
 * `GET /changes` (D52): the changes after an opaque cursor, oldest first, each with its record as the caller
 * reads it (or `deleted` without one). Retention prunes by the service clock and remembers how far it went, so a
 * cursor from before that point is 410 `rest_cursor_expired` rather than a silent gap.
 */
import type { Config } from '../config';
import type { Db, Executor } from '../db/types';
import { toNumber, utcAt } from '../db/dialect';
import { now } from '../domain/clock';
import { ApiError, invalidParam } from '../core/errors';
import type { Resource } from '../core/outbox';
import type { Reader } from '../core/reader';
import { readRecord, type WireRecord } from '../resources/records';

const CURSOR_VERSION = 'c1';

export function encodeCursor(id: number): string {
  return Buffer.from(`${CURSOR_VERSION}:${id}`).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const [version, id] = Buffer.from(cursor, 'base64url').toString('utf8').split(':');
  if (version !== CURSOR_VERSION || !/^\d{1,15}$/.test(id ?? '')) throw invalidParam('cursor', 'cursor_invalid');
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

async function prunedThrough(db: Executor): Promise<number> {
  const row = await db('change_feed').where({ id: 1 }).first('pruned_through');
  return toNumber(row?.pruned_through);
}

export async function readChanges(
  reader: Reader,
  db: Db,
  config: Readonly<Config>,
  cursor: string | undefined,
  limit: number,
) {
  await pruneChanges(db, config);
  const horizon = await prunedThrough(db);
  if (cursor === undefined) {
    const last = await db('changes').max('id as id').first();
    return { changes: [], next_cursor: encodeCursor(Math.max(horizon, toNumber(last?.id))), has_more: false };
  }
  const after = decodeCursor(cursor);
  if (after < horizon) throw new ApiError(410, 'rest_cursor_expired', 'cursor_expired');
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
  return { changes, next_cursor: encodeCursor(last), has_more: rows.length > limit };
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
