/**
 * Where the change feed stands (`changes`, migration 007; D52: ids become visible in order, so the newest id read
 * names a prefix with no gaps to fill later), read at the database's level: its newest position, and which records
 * changed after a position. What a caller sees of the feed (cursors, records, retention) is
 * src/integrations/changes.ts.
 */
import type { Executor } from './types';
import { toNumber } from './dialect';
import { statement } from './statements';

/** A record the feed names: its kind (`event`, `tag`…) and id. */
export interface ChangedRecord {
  resource: string;
  id: number;
}

/** How far retention has pruned the feed: positions up to it are gone. */
export async function prunedThrough(db: Executor): Promise<number> {
  const row = await db('change_feed').where({ id: 1 }).first('pruned_through');
  return toNumber(row?.pruned_through);
}

/** The data version (db/data-version.ts) and the newest position of the feed, read together. */
export interface Standing {
  version: number;
  position: number;
}

/** The feed's newest position: its last change, never behind the retention horizon (emptied by pruning). */
const newest = (pruned: unknown, last: unknown) => Math.max(toNumber(pruned), toNumber(last));

/** The newest position of the feed, in one statement. */
export async function latestPosition(db: Executor): Promise<number> {
  const row = await db('change_feed').where({ id: 1 }).first('pruned_through', db('changes').max('id').as('last'));
  return newest(row?.pruned_through, row?.last);
}

const STANDING = statement((db) =>
  db('data_version as v')
    .where('v.id', 1)
    .select(
      'v.version',
      db('change_feed').where('id', 1).select('pruned_through').as('pruned'),
      db('changes').max('id').as('last'),
    ),
);

/** Where the data stands, in one statement. */
export async function versionAndPosition(db: Executor): Promise<Standing> {
  const [row] = await STANDING.all<{ version: unknown; pruned: unknown; last: unknown }>(db);
  return { version: toNumber(row.version), position: newest(row.pruned, row.last) };
}

/**
 * The records changed after position `after`, each once; undefined when retention has pruned some of those changes,
 * or when more than `limit` changes follow it (then what depends on them is better found again than patched).
 */
export async function changedAfter(db: Executor, after: number, limit: number): Promise<ChangedRecord[] | undefined> {
  return (await changesAfter(db, after, limit))?.records;
}

/**
 * The retention horizon (part 0) and the first `limit` changes after a position, up to another (part 1), in one
 * statement (one snapshot), built once per limit: asked on every kept answer proved after writes.
 */
const changesStatements = new Map<number, ReturnType<typeof changesStatement>>();
const changesStatement = (limit: number) =>
  statement((db, after: number, through: number) =>
    db('change_feed')
      .where('id', 1)
      .select(db.raw('0 as part'), 'pruned_through as id', db.raw('null as resource'), db.raw('null as record_id'))
      .unionAll(
        db
          .from(
            db('changes')
              .where('id', '>', after)
              .where('id', '<=', through)
              .orderBy('id')
              .limit(limit)
              .select('id', 'resource', 'record_id')
              .as('c'),
          )
          .select(db.raw('1 as part'), 'id', 'resource', 'record_id'),
      ),
  );

/** No bound: the newest position a feed of 64-bit ids can reach. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/** The changes after a position, each record once, and the position of the newest change read. */
export interface Stretch {
  records: ChangedRecord[];
  position: number;
}

/**
 * As `changedAfter`, with the position of the newest change read (`after` when none): the changes checked reach it.
 * With `through`, only the changes up to that position are read, and they reach it.
 */
export async function changesAfter(
  db: Executor,
  after: number,
  limit: number,
  through = UNBOUNDED,
): Promise<Stretch | undefined> {
  let read = changesStatements.get(limit + 1);
  if (!read) changesStatements.set(limit + 1, (read = changesStatement(limit + 1)));
  const rows = await read.all<{ part: unknown; id: unknown; resource: string; record_id: unknown }>(db, after, through);
  const pruned = toNumber(rows.find((row) => toNumber(row.part) === 0)?.id);
  const changes = rows.filter((row) => toNumber(row.part) === 1).sort((a, b) => toNumber(a.id) - toNumber(b.id));
  if (pruned > after || changes.length > limit) return undefined;
  const seen = new Map<string, ChangedRecord>();
  let position = after;
  for (const { id, resource, record_id } of changes) {
    seen.set(`${resource}:${record_id}`, { resource, id: toNumber(record_id) });
    position = toNumber(id);
  }
  return { records: [...seen.values()], position: through === UNBOUNDED ? position : Math.max(position, through) };
}
