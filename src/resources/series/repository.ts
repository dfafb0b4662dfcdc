/**
 * Series rows (`event_series`, `series_occurrences`, `series_lease`) and the batched writes of occurrences.
 *
 * Every event shows its series' rule, extra and excluded dates and its own membership (`recurrence`), so a write of
 * these rows changes the answers of events it does not write itself. The functions that write them therefore take
 * the write (core/write.ts), not a bare transaction, and name the events whose answers they change (`showing`): the
 * kernel announces those as updated, raising their stamps, feeding the change feed and the webhooks. Nothing else
 * writes these tables (test/unit/series-writes.test.ts holds the source to that).
 */
import type { Knex } from 'knex';
import type { Executor } from '../../db/types';
import { toBoolean, toNumber } from '../../db/dialect';
import { forUpdate } from '../../db/dialects/locks';
import { statement } from '../../db/statements';
import type { WallClock } from '../../domain/dates';
import type { Write } from '../../core/write';
import type { PostValues } from '../posts/repository';
import type { EventFields } from '../events/repository';

export interface SeriesRow {
  event_id: number;
  rrule: string;
  rdates: WallClock[];
  exdates: WallClock[];
  open_ended: boolean;
  horizon_utc: WallClock | null;
}

export interface Membership {
  event_id: number;
  series_id: number;
  original_local: WallClock;
  detached: boolean;
}

/** A page's worth of rows per INSERT keeps every statement under SQLite's bound-variable limit. */
const BATCH = 100;

function normaliseSeries(row: Record<string, unknown>): SeriesRow {
  return {
    event_id: toNumber(row.event_id),
    rrule: String(row.rrule),
    rdates: JSON.parse(String(row.rdates)) as WallClock[],
    exdates: JSON.parse(String(row.exdates)) as WallClock[],
    open_ended: toBoolean(row.open_ended),
    horizon_utc: (row.horizon_utc as string | null) ?? null,
  };
}

function normaliseMembership(row: Record<string, unknown>): Membership {
  return {
    event_id: toNumber(row.event_id),
    series_id: toNumber(row.series_id),
    original_local: String(row.original_local),
    detached: toBoolean(row.detached),
  };
}

export async function findSeries(
  db: Executor,
  seriesId: number,
  { lock = false } = {},
): Promise<SeriesRow | undefined> {
  const query = db('event_series').where({ event_id: seriesId });
  if (lock) forUpdate(db, query);
  const row = await query.first();
  return row && normaliseSeries(row);
}

/** What every member's `recurrence` shows of its series row (not the horizon: it decides only what exists). */
const SHOWN = ['rrule', 'rdates', 'exdates'] as const;

/** Writes a series row; when what its members show changes, every member is announced (those of the write's end). */
export async function saveSeries(w: Write, row: SeriesRow): Promise<void> {
  const before = await findSeries(w.trx, row.event_id);
  const values = { ...row, rdates: JSON.stringify(row.rdates), exdates: JSON.stringify(row.exdates) };
  await w.trx('event_series').insert(values).onConflict('event_id').merge();
  const shownChanged = SHOWN.some((key) => !before || JSON.stringify(before[key]) !== JSON.stringify(row[key]));
  if (shownChanged) showMembers(w, row.event_id);
}

/** Every member of the series, as it is when the write's work is done. */
function showMembers(w: Write, seriesId: number): void {
  w.showing('event', async (trx) => (await membersOf(trx, seriesId)).map((m) => m.event_id), `series:${seriesId}`);
}

/** These events show a change of their own membership. */
function showEvents(w: Write, eventIds: number[]): void {
  if (eventIds.length) w.showing('event', async () => eventIds);
}

/** Ends a series: its members (those that still exist when the work is done) show no `recurrence` any more. */
export async function deleteSeries(w: Write, seriesId: number): Promise<void> {
  const members = (await membersOf(w.trx, seriesId)).map((m) => m.event_id);
  await w.trx('series_occurrences').where({ series_id: seriesId }).delete();
  await w.trx('event_series').where({ event_id: seriesId }).delete();
  w.showing('event', (trx) => existingPosts(trx, members));
}

async function existingPosts(db: Executor, ids: number[]): Promise<number[]> {
  const found: number[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const rows: Array<{ id: unknown }> = await db('posts')
      .whereIn('id', ids.slice(i, i + 500))
      .select('id');
    found.push(...rows.map((row) => toNumber(row.id)));
  }
  return found;
}

export async function membershipOf(db: Executor, eventId: number): Promise<Membership | undefined> {
  const row = await db('series_occurrences').where({ event_id: eventId }).first();
  return row && normaliseMembership(row);
}

/** Every occurrence of a series (the series event included), in original order. */
export async function membersOf(db: Executor, seriesId: number): Promise<Membership[]> {
  const rows = await db('series_occurrences').where({ series_id: seriesId }).orderBy('original_local');
  return rows.map(normaliseMembership);
}

export async function addMembers(w: Write, members: Membership[]): Promise<void> {
  for (let i = 0; i < members.length; i += BATCH) await w.trx('series_occurrences').insert(members.slice(i, i + BATCH));
  showEvents(
    w,
    members.map((m) => m.event_id),
  );
}

/** Marks occurrences detached (kept out of regeneration) or attached again. */
export async function setDetached(w: Write, eventIds: number[], detached = true): Promise<void> {
  for (let i = 0; i < eventIds.length; i += 500)
    await w
      .trx('series_occurrences')
      .whereIn('event_id', eventIds.slice(i, i + 500))
      .update({ detached });
  showEvents(w, eventIds);
}

/** The local start an occurrence stands for in its rule (its RECURRENCE-ID in a feed). */
export async function setOriginal(w: Write, eventId: number, originalLocal: WallClock): Promise<void> {
  await w.trx('series_occurrences').where({ event_id: eventId }).update({ original_local: originalLocal });
  showEvents(w, [eventId]);
}

/** Moves occurrences to another series (a `following` split): membership and `post_parent`. */
export async function relink(w: Write, eventIds: number[], seriesId: number): Promise<void> {
  if (!eventIds.length) return;
  const { trx } = w;
  await trx('series_occurrences').whereIn('event_id', eventIds).update({ series_id: seriesId });
  await trx('events').whereIn('post_id', eventIds).update({ post_parent: seriesId });
  await trx('events').where({ post_id: seriesId }).update({ post_parent: null });
  showEvents(w, [...eventIds, seriesId]);
}

const SERIES_OF_EVENTS = statement((db, eventIds: number[]) =>
  db('series_occurrences as so')
    .join('event_series as es', 'es.event_id', 'so.series_id')
    .whereIn('so.event_id', eventIds)
    .select('so.event_id as member_id', 'so.series_id', 'so.original_local', 'so.detached', 'es.*'),
);

/** Series membership of the events of a page, with their series' rule (one query). */
export async function seriesOfEvents(
  db: Executor,
  eventIds: number[],
): Promise<Map<number, Membership & { series: SeriesRow }>> {
  const found = new Map<number, Membership & { series: SeriesRow }>();
  if (!eventIds.length) return found;
  const rows = await SERIES_OF_EVENTS.all<Record<string, unknown>>(db, eventIds);
  for (const row of rows) {
    const membership = normaliseMembership({ ...row, event_id: row.member_id });
    found.set(membership.event_id, { ...membership, series: normaliseSeries(row) });
  }
  return found;
}

/** The open-ended series materialised short of `untilUtc`. */
export async function seriesShortOf(db: Executor, untilUtc: WallClock, limit = 1000): Promise<number[]> {
  const rows: Array<{ event_id: number }> = await db('event_series')
    .where('open_ended', true)
    .where('horizon_utc', '<', untilUtc)
    .orderBy('event_id')
    .limit(limit)
    .select('event_id');
  return rows.map((r) => toNumber(r.event_id));
}

/**
 * Takes the daily horizon lease when it was last taken before `staleBefore`: true for the one caller (on any
 * node) that gets it, which then extends the horizons inside the same transaction.
 */
export async function takeLease(trx: Knex.Transaction, nowUtc: WallClock, staleBefore: WallClock): Promise<boolean> {
  const query = trx('series_lease').where({ name: 'horizon' });
  forUpdate(trx, query);
  const row = await query.first();
  if (!row || row.extended_utc > staleBefore) return false;
  await trx('series_lease').where({ name: 'horizon' }).update({ extended_utc: nowUtc });
  return true;
}

export interface NewOccurrence {
  post: PostValues;
  event: EventFields;
  originalLocal: WallClock;
}

/** Inserts occurrences (posts, events, memberships) in batches; answers their ids in order. */
export async function insertOccurrences(w: Write, seriesId: number, items: NewOccurrence[]): Promise<number[]> {
  const { trx } = w;
  const ids: number[] = [];
  for (let i = 0; i < items.length; i += BATCH) {
    const batch = items.slice(i, i + BATCH);
    const rows: Array<{ id: number; slug: string }> = await trx('posts')
      .insert(batch.map((item) => item.post))
      .returning(['id', 'slug']);
    const bySlug = new Map(rows.map((row) => [row.slug, toNumber(row.id)]));
    const batchIds = batch.map((item) => bySlug.get(item.post.slug) as number);
    await trx('events').insert(batch.map((item, n) => ({ post_id: batchIds[n], ...item.event })));
    await addMembers(
      w,
      batch.map((item, n) => ({
        event_id: batchIds[n],
        series_id: seriesId,
        original_local: item.originalLocal,
        detached: false,
      })),
    );
    ids.push(...batchIds);
  }
  return ids;
}

/** The taken slugs among `slugs` (events). */
export async function takenSlugs(db: Executor, slugs: string[]): Promise<Set<string>> {
  const taken = new Set<string>();
  for (let i = 0; i < slugs.length; i += 500) {
    const rows: Array<{ slug: string }> = await db('posts')
      .where({ type: 'event' })
      .whereIn('slug', slugs.slice(i, i + 500))
      .select('slug');
    for (const row of rows) taken.add(row.slug);
  }
  return taken;
}

/**
 * Gives `targets` the series event's categories, tags, organizers and translations (one statement each):
 * whatever of these the series event has applies to its occurrences.
 */
export async function copyLinks(trx: Knex.Transaction, sourceId: number, targets: number[]): Promise<void> {
  for (let i = 0; i < targets.length; i += 500) {
    const ids = targets.slice(i, i + 500);
    const marks = ids.map(() => '?').join(',');
    await trx('term_relationships').whereIn('post_id', ids).delete();
    await trx('event_organizers').whereIn('event_id', ids).delete();
    await trx('post_translations').whereIn('post_id', ids).delete();
    await trx.raw(
      `insert into term_relationships (post_id, term_id)
      select p.id, r.term_id from posts p join term_relationships r on r.post_id = ? where p.id in (${marks})`,
      [sourceId, ...ids],
    );
    await trx.raw(
      `insert into event_organizers (event_id, organizer_id, position)
      select p.id, o.organizer_id, o.position from posts p join event_organizers o on o.event_id = ?
      where p.id in (${marks})`,
      [sourceId, ...ids],
    );
    await trx.raw(
      `insert into post_translations (post_id, language, field, value)
      select p.id, t.language, t.field, t.value from posts p join post_translations t on t.post_id = ?
      where p.id in (${marks})`,
      [sourceId, ...ids],
    );
  }
}

/** Writes the same post and event values to many occurrences (one statement per table and batch). */
export async function updateMany(
  trx: Knex.Transaction,
  ids: number[],
  post: Partial<PostValues>,
  event: Partial<EventFields>,
): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    const batch = ids.slice(i, i + 500);
    if (Object.keys(post).length) await trx('posts').whereIn('id', batch).update(post);
    if (Object.keys(event).length) await trx('events').whereIn('post_id', batch).update(event);
    await trx('events').whereIn('post_id', batch).increment('revision', 1); // their iCalendar SEQUENCE grows
  }
}

/** The stored start and end of events (one query per 500). */
export async function timesOf(
  db: Executor,
  ids: number[],
): Promise<Map<number, Pick<EventFields, 'start_local' | 'end_local' | 'start_utc' | 'end_utc'>>> {
  const found = new Map<number, Pick<EventFields, 'start_local' | 'end_local' | 'start_utc' | 'end_utc'>>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows: Array<EventFields & { post_id: number }> = await db('events')
      .whereIn('post_id', ids.slice(i, i + 500))
      .select('post_id', 'start_local', 'end_local', 'start_utc', 'end_utc');
    for (const { post_id, start_local, end_local, start_utc, end_utc } of rows)
      found.set(toNumber(post_id), { start_local, end_local, start_utc, end_utc });
  }
  return found;
}

export async function deleteEvents(trx: Knex.Transaction, ids: number[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 500)
    await trx('posts')
      .whereIn('id', ids.slice(i, i + 500))
      .delete();
}

/** For the metrics: the earliest horizon of an open-ended series (null without any) and when the lease last ran. */
export async function horizonStatus(
  db: Executor,
): Promise<{ earliestHorizon: WallClock | null; extendedAt: WallClock | null }> {
  const [{ earliest }] = await db('event_series').where('open_ended', true).min({ earliest: 'horizon_utc' });
  const lease = await db('series_lease').where({ name: 'horizon' }).first('extended_utc');
  return {
    earliestHorizon: (earliest as WallClock | null) ?? null,
    extendedAt: (lease?.extended_utc as WallClock | undefined) ?? null,
  };
}
