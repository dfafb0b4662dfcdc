/**
 * The start and end of every event a list's filters other than its window keep, held in memory: which of a set of
 * events (a common word's 50 000 matches, a category's links) fall in a window is then a look-up per event, not a
 * read of the window's ids (460 000 at a million events, 30 ms) for every window never asked before. Memoised per
 * database like match sets (db/memo.ts) and brought up to date after writes from the change feed: the events it
 * names are read again into a small overlay, folded into the arrays when it grows.
 */
import type { Knex } from 'knex';
import type { Executor } from '../../db/types';
import { toNumber } from '../../db/dialect';
import { bindingsKey, lowerBound } from '../../db/counts';
import { idsAsText } from '../../db/dialects/search';
import { changedAfter } from '../../db/feed-position';
import { memo } from '../../db/memo';

/** A window's bounds (`EventFilters`), each a UTC time `YYYY-MM-DD HH:MM:SS`. */
export interface TimeBounds {
  startFrom?: string;
  endTo?: string;
  startsBefore?: string;
  startsAfter?: string;
  endsBefore?: string;
  endsAfter?: string;
}

/** Events' times by id: sorted ids, their starts and ends as numbers (`timeValue`); an overlay holds later reads. */
export interface Times {
  ids: Int32Array;
  starts: Float64Array;
  ends: Float64Array;
  /** Events read again after writes: their times, or null when they are no longer kept. */
  overlay: ReadonlyMap<number, readonly [number, number] | null>;
}

/** 20 bytes an event: 48 MB holds the kept events of two million-event calendars (two classes of caller). */
const kept = memo<Times>((t) => t.ids.length * 20 + t.overlay.size * 64, { entries: 16, budget: 48_000_000 });

/** At most this many changes since the times were read are read one by one; more, and they are read again. */
const MAX_PATCHED = 500;
/** The overlay is folded into the arrays past this many events. */
const MAX_OVERLAY = 2_000;

/**
 * Those of `candidates` (sorted ids) that `events` (a query of `events as e` with the list's other filters) keeps
 * and whose times fall within `bounds`, sorted; undefined when a bound is not a plain UTC time, or when an event's
 * time is not (the database then decides).
 */
export async function inWindow(
  db: Executor,
  events: () => Knex.QueryBuilder,
  bounds: TimeBounds,
  candidates: Int32Array,
): Promise<Int32Array | undefined> {
  const within = windowTest(bounds);
  if (!within) return undefined;
  const times = await timesOf(db, events);
  return times && held(times, candidates, within);
}

function timesOf(db: Executor, events: () => Knex.QueryBuilder): Promise<Times | undefined> {
  const { sql, bindings } = events().select('e.post_id').toSQL();
  const read = async () => (await readTimes(db, events())) ?? UNUSABLE;
  const update = async (times: Times, since: number) =>
    times === UNUSABLE ? undefined : patched(db, events, times, since);
  return kept.get(db, `${sql}\n${bindingsKey(bindings)}`, read, update).then((t) => (t === UNUSABLE ? undefined : t));
}

/** Times read whose values are not plain UTC times: remembered, so they are not read again until a write. */
const UNUSABLE: Times = {
  ids: new Int32Array(0),
  starts: new Float64Array(0),
  ends: new Float64Array(0),
  overlay: new Map(),
};

/** The kept events' ids and times, sorted by id, read back as one text (a million rows would cost more one by one). */
async function readTimes(db: Executor, events: Knex.QueryBuilder): Promise<Times | undefined> {
  const rows = events.select({ id: 'e.post_id', s: 'e.start_utc', f: 'e.end_utc' });
  const all = db.raw(`${idsAsText(db, "(t.id || ',' || t.s || ',' || t.f)", 't.id')} as times`);
  const [{ times }] = (await db.from(rows.as('t')).select(all)) as Array<{ times: string | null }>;
  return parsedTimes(times ?? '');
}

/** `id,start,end,…` parsed; undefined when a time is not `YYYY-MM-DD HH:MM:SS` or the ids are not ascending. */
export function parsedTimes(text: string): Times | undefined {
  let commas = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === COMMA) commas++;
  const rows = text ? (commas + 1) / 3 : 0;
  if (!Number.isInteger(rows)) return undefined;
  const times = { ids: new Int32Array(rows), starts: new Float64Array(rows), ends: new Float64Array(rows) };
  const columns = [times.ids, times.starts, times.ends];
  let value = 0;
  let digits = 0;
  let field = 0;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : COMMA;
    if (code >= ZERO && code <= NINE) {
      value = value * 10 + code - ZERO;
      digits++;
    } else if (code === COMMA) {
      if (field % 3 !== 0 && digits !== TIME_DIGITS) return undefined;
      columns[field % 3][Math.floor(field / 3)] = value;
      field++;
      value = 0;
      digits = 0;
    } else if (field % 3 === 0) return undefined;
  }
  for (let i = 1; i < rows; i++) if (times.ids[i] <= times.ids[i - 1]) return undefined;
  return { ...times, overlay: new Map() };
}
const COMMA = 44;
const ZERO = 48;
const NINE = 57;
const TIME_DIGITS = 14;

/** A UTC time `YYYY-MM-DD HH:MM:SS` as the number of its digits, which orders as the text does; else undefined. */
export function timeValue(time: string): number | undefined {
  return /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(time) ? Number(time.replace(/\D/g, '')) : undefined;
}

type Within = (start: number, end: number) => boolean;

/** The window's conditions on a start and an end, as the list query's (`applyFilters`); undefined as `inWindow`. */
function windowTest(bounds: TimeBounds): Within | undefined {
  const values: Partial<Record<keyof TimeBounds, number>> = {};
  for (const [bound, time] of Object.entries(bounds) as Array<[keyof TimeBounds, string | undefined]>) {
    if (time === undefined) continue;
    values[bound] = timeValue(time);
    if (values[bound] === undefined) return undefined;
  }
  const { startFrom, endTo, startsBefore, startsAfter, endsBefore, endsAfter } = values;
  return (start, end) =>
    (startFrom === undefined || start >= startFrom) &&
    (endTo === undefined || (end <= endTo && start <= endTo)) &&
    (startsBefore === undefined || start < startsBefore) &&
    (startsAfter === undefined || start > startsAfter) &&
    (endsBefore === undefined || (end < endsBefore && start < endsBefore)) &&
    (endsAfter === undefined || end > endsAfter);
}

/** Those of `candidates` kept and within the window, sorted. */
function held(times: Times, candidates: Int32Array, within: Within): Int32Array {
  const found = new Int32Array(candidates.length);
  let count = 0;
  let at = 0;
  for (const id of candidates) {
    const patched = times.overlay.size ? times.overlay.get(id) : undefined;
    if (patched !== undefined) {
      if (patched && within(patched[0], patched[1])) found[count++] = id;
      continue;
    }
    at = lowerBound(times.ids, id, at);
    if (times.ids[at] === id && within(times.starts[at], times.ends[at])) found[count++] = id;
  }
  return found.slice(0, count);
}

/** The times brought up to date: the events the feed names since are read again into the overlay. */
async function patched(db: Executor, events: () => Knex.QueryBuilder, times: Times, since: number) {
  const changed = await changedAfter(db, since, MAX_PATCHED);
  if (!changed) return undefined;
  const ids = [...new Set(changed.filter((c) => c.resource === 'event').map((c) => c.id))];
  if (!ids.length) return times;
  const rows = (await events()
    .whereIn('e.post_id', ids)
    .select({ id: 'e.post_id', s: 'e.start_utc', f: 'e.end_utc' })) as Array<{ id: unknown; s: string; f: string }>;
  const overlay = new Map(times.overlay);
  for (const id of ids) overlay.set(id, null);
  for (const row of rows) {
    const [start, end] = [timeValue(row.s), timeValue(row.f)];
    if (start === undefined || end === undefined) return undefined;
    overlay.set(toNumber(row.id), [start, end]);
  }
  const next = { ...times, overlay };
  return overlay.size > MAX_OVERLAY ? folded(next) : next;
}

/** The overlay folded into the arrays (new ones: a value may still be read by a list begun before). For the tests. */
export function folded(times: Times): Times {
  const length = times.ids.length;
  const ids = new Int32Array(length + times.overlay.size);
  const starts = new Float64Array(ids.length);
  const ends = new Float64Array(ids.length);
  const changes = [...times.overlay].sort(([a], [b]) => a - b);
  let count = 0;
  const keep = (id: number, start: number, end: number) => {
    ids[count] = id;
    starts[count] = start;
    ends[count++] = end;
  };
  let i = 0;
  for (const [id, value] of changes) {
    for (; i < length && times.ids[i] < id; i++) keep(times.ids[i], times.starts[i], times.ends[i]);
    if (i < length && times.ids[i] === id) i++;
    if (value) keep(id, value[0], value[1]);
  }
  for (; i < length; i++) keep(times.ids[i], times.starts[i], times.ends[i]);
  return { ids: ids.slice(0, count), starts: starts.slice(0, count), ends: ends.slice(0, count), overlay: new Map() };
}
