/**
 * The start and end of every event a list's filters other than its window keep, held in memory: which of a set of
 * events (a common word's 50 000 matches, a category's links) fall in a window is then a look-up per event, not a
 * read of the window's ids (460 000 at a million events, 30 ms) for every window never asked before. Memoised per
 * database like match sets (db/memo.ts) and brought up to date after writes from the change feed: the events it
 * names are read again into a small overlay, folded into the arrays when it grows.
 */
import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import type { Executor } from '../../db/types';
import { toNumber } from '../../db/dialect';
import { bindingsKey, rechecked } from '../../db/counts';
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

/**
 * Events' times by id: `spans[2 * id]` the start and `spans[2 * id + 1]` the end, as numbers (`timeValue`), NaN for
 * an event not kept (post ids are dense: 16 bytes a post, less than a sorted list of ids and times would take, and no
 * sort; side by side, a look-up reads one line of memory); an overlay holds later reads.
 */
export interface Times {
  spans: Float64Array;
  /** Events read again after writes: their times, or null when they are no longer kept. */
  overlay: ReadonlyMap<number, readonly [number, number] | null>;
}

/** 48 MB holds the times of two million-event calendars (two classes of caller). */
const kept = memo<Times>((t) => t.spans.byteLength + t.overlay.size * 64, { entries: 16, budget: 48_000_000 });

/** At most this many changes since the times were read are read one by one; more, and they are read again. */
const MAX_PATCHED = 500;
/** The overlay is folded into the arrays past this many events. */
const MAX_OVERLAY = 2_000;

/**
 * Those of `candidates` (sorted ids; every event when none are given) that `events` (a query of `events as e` with
 * the list's other filters) keeps and whose times fall within `bounds`, sorted; undefined when a bound is not a
 * plain UTC time, or an event's time is not, or the ids are too sparse (the database then decides).
 */
export async function inWindow(
  db: Executor,
  events: () => Knex.QueryBuilder,
  bounds: TimeBounds,
  candidates?: Int32Array,
): Promise<Int32Array | undefined> {
  const within = windowTest(bounds);
  if (!within) return undefined;
  const times = await timesOf(db, events);
  if (!times) return undefined;
  return candidates ? held(times, candidates, within) : allWithin(times, within);
}

/**
 * Of `members` (the ids a list counts, all within its window), those whose start is among the `count` earliest,
 * ties kept: the first `count` members in list order (start, then publication, then id) are among them, so the page
 * is read by id rather than found by walking the window. Undefined as `inWindow`, or when a member is not held.
 */
export async function earliest(
  db: Executor,
  events: () => Knex.QueryBuilder,
  members: Int32Array,
  count: number,
): Promise<Int32Array | undefined> {
  const times = await timesOf(db, events);
  return times && earliestOf(times, members, count);
}

/** `earliest` with the times at hand. Exported for the tests. */
export function earliestOf(times: Times, members: Int32Array, count: number): Int32Array | undefined {
  const starts = new Float64Array(members.length);
  for (let i = 0; i < members.length; i++) {
    const patched = times.overlay.size ? times.overlay.get(members[i]) : undefined;
    starts[i] = patched === undefined ? (times.spans[2 * members[i]] ?? Number.NaN) : (patched?.[0] ?? Number.NaN);
    if (Number.isNaN(starts[i])) return undefined; // written since the members were found: the walk decides
  }
  if (members.length <= count) return members;
  const last = smallest(starts, count);
  return members.filter((_, i) => starts[i] <= last);
}

/** The `k`-th smallest of `values` (k ≥ 1): a sorted run of the k smallest kept while scanning, when k is small. */
function smallest(values: Float64Array, k: number): number {
  if (k > 64) return Float64Array.from(values).sort()[k - 1];
  const best = Float64Array.from(values.subarray(0, k)).sort();
  for (let i = k; i < values.length; i++) {
    const value = values[i];
    if (value >= best[k - 1]) continue;
    let j = k - 1;
    for (; j > 0 && best[j - 1] > value; j--) best[j] = best[j - 1];
    best[j] = value;
  }
  return best[k - 1];
}

function timesOf(db: Executor, events: () => Knex.QueryBuilder): Promise<Times | undefined> {
  const { sql, bindings } = events().select('e.post_id').toSQL();
  const read = async () => (await readTimes(db, events())) ?? UNUSABLE;
  // times that were not plain stay unused (until the memo lets them go): reading them again on each write would cost
  const update = async (times: Times, since: number) =>
    times === UNUSABLE ? UNUSABLE : patched(db, events, times, since);
  return kept.get(db, `${sql}\n${bindingsKey(bindings)}`, read, update).then((t) => (t === UNUSABLE ? undefined : t));
}

/** Times read that are not plain UTC times, or ids too sparse to index by: the database decides. */
const UNUSABLE: Times = { spans: new Float64Array(0), overlay: new Map() };

/** The kept events' ids and times, read back as one text (a million rows would cost more one by one). */
async function readTimes(db: Executor, events: Knex.QueryBuilder): Promise<Times | undefined> {
  const rows = events.select({ id: 'e.post_id', s: 'e.start_utc', f: 'e.end_utc' });
  const all = db.raw(`${idsAsText(db, "(t.id || ',' || t.s || ',' || t.f)")} as times`);
  const [{ times }] = (await db.from(rows.as('t')).select(all)) as Array<{ times: string | null }>;
  return parsedTimes(times ?? '');
}

/** `id,start,end,…` parsed; undefined when a time is not `YYYY-MM-DD HH:MM:SS` or the ids are too sparse. */
export function parsedTimes(text: string): Times | undefined {
  let commas = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === COMMA) commas++;
  const rows = text ? (commas + 1) / 3 : 0;
  if (!Number.isInteger(rows)) return undefined;
  const read = [new Float64Array(rows), new Float64Array(rows), new Float64Array(rows)]; // ids, starts, ends
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
      read[field % 3][Math.floor(field / 3)] = value;
      field++;
      value = 0;
      digits = 0;
    } else if (field % 3 === 0) return undefined;
  }
  const [ids, starts, ends] = read;
  const size = ids.reduce((max, id) => Math.max(max, id + 1), 0);
  if (size > 2 * rows + 1024) return undefined;
  const spans = new Float64Array(2 * size).fill(Number.NaN);
  for (let i = 0; i < rows; i++) {
    spans[2 * ids[i]] = starts[i];
    spans[2 * ids[i] + 1] = ends[i];
  }
  return { spans, overlay: new Map() };
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

/** Every event kept and within the window, sorted: a walk of the arrays (a million posts in a few milliseconds). */
function allWithin({ spans, overlay }: Times, within: Within): Int32Array {
  const found = new Int32Array(spans.length / 2);
  let count = 0;
  for (let id = 0; id < found.length; id++) {
    if (!Number.isNaN(spans[2 * id]) && within(spans[2 * id], spans[2 * id + 1])) found[count++] = id;
  }
  const now = new Set([...overlay].flatMap(([id, times]) => (times && within(times[0], times[1]) ? [id] : [])));
  return rechecked(found.slice(0, count), overlay.keys(), now);
}

/** Those of `candidates` kept and within the window, sorted. Exported for the tests. */
export function held(times: Times, candidates: Int32Array, within: Within): Int32Array {
  const spans = spansOf(times, candidates);
  const found = new Int32Array(candidates.length);
  let count = 0;
  for (let i = 0; i < candidates.length; i++) {
    const start = spans[2 * i];
    if (!Number.isNaN(start) && within(start, spans[2 * i + 1])) found[count++] = candidates[i];
  }
  return found.slice(0, count);
}

/**
 * The spans of `candidates` side by side in their order (NaN: not kept). A common word's 50 000 matches lie
 * scattered over a million events' 16 MB of spans, a read of memory each (2–3 ms); gathered once, every other window
 * asked of the same set (a memoised match set) and times walks 800 KB in order. Large sets are kept, least recently
 * used dropped first within a budget, until a write brings new times or a new set.
 */
function spansOf(times: Times, candidates: Int32Array): Float64Array {
  const known = gathered.get(candidates);
  if (known?.times.deref() === times) return known.spans;
  const spans = gather(times, candidates);
  if (candidates.length >= MIN_GATHERED) gathered.set(candidates, { times: new WeakRef(times), spans });
  return spans;
}

function gather({ spans, overlay }: Times, candidates: Int32Array): Float64Array {
  const into = new Float64Array(2 * candidates.length).fill(Number.NaN);
  for (let i = 0; i < candidates.length; i++) {
    const id = candidates[i];
    const patched = overlay.size ? overlay.get(id) : undefined;
    if (patched === undefined) {
      into[2 * i] = spans[2 * id] ?? Number.NaN; // past the arrays' end: an event not held
      into[2 * i + 1] = spans[2 * id + 1] ?? Number.NaN;
    } else if (patched) {
      into[2 * i] = patched[0];
      into[2 * i + 1] = patched[1];
    }
  }
  return into;
}

/**
 * Gathered spans of large sets, by set: 8 MB holds those of eight common words' 50 000 matches, with the sets (16
 * bytes a member, and 4 for the set kept alive). The times they were read from are held weakly: times the memo let
 * go (16 MB at a million events) are not kept alive.
 */
const gathered = new LRUCache<Int32Array, { times: WeakRef<Times>; spans: Float64Array }>({
  maxSize: 8_000_000,
  sizeCalculation: (_gathered, set) => set.length * 20,
});
/** Smaller sets are not kept: their scattered reads cost little. */
const MIN_GATHERED = 1_000;

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
export function folded({ spans, overlay }: Times): Times {
  const size = Math.max(spans.length / 2, ...[...overlay.keys()].map((id) => id + 1));
  const next = new Float64Array(2 * size).fill(Number.NaN);
  next.set(spans);
  for (const [id, value] of overlay) {
    next[2 * id] = value ? value[0] : Number.NaN;
    next[2 * id + 1] = value ? value[1] : Number.NaN;
  }
  return { spans: next, overlay: new Map() };
}
