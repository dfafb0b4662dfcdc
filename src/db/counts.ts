/**
 * Exact totals for list pages, kept cheap: a page with fewer rows than asked for tells its total without counting,
 * and other counts are memoised per database by their SQL and bindings and the data version (memo.ts), so a total
 * is reused only while no write has committed since it was counted, on any node.
 *
 * A count whose rows each depend on one record alone (`CountedIds`: events in a window, a category, a search) is
 * memoised as the set of ids it counts, and brought up to date after a write by checking again only the records the
 * change feed names since (D143): a write to one event costs a warm count a look-up by id, not a walk of the tens of
 * thousands of rows a common category or word holds at a million events.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Executor } from './types';
import { toNumber } from './dialect';
import { idsAsText } from './dialects/search';
import { changedAfter, type Standing } from './feed-position';
import { memo } from './memo';

const totals = memo<number>(() => 1, { entries: 1000, budget: 1000 });

/** At most this many changes since a set was counted are checked one by one; more, and it is counted again. */
const MAX_PATCHED = 500;

/** Sets of counted ids, sorted, 4 bytes an id: 24 MB holds 6 M ids (a million events' default window is ~500 000). */
const countedSets = memo<Int32Array>((ids) => ids.length * 4 + 64, { entries: 1000, budget: 24_000_000 });

/**
 * The total of a list whose page (`limit` rows from `offset`) holds `onPage` rows; `count` builds the query
 * `count({ total: '*' })` of the same filters, which names its memo. `cheapest`, when given, answers an equivalent
 * count that may run faster for these values (a plan chosen by measuring them), asked only when it must be counted.
 */
export async function listTotal(
  db: Executor,
  onPage: number,
  limit: number,
  offset: number,
  count: () => Knex.QueryBuilder,
  cheapest?: () => Promise<Knex.QueryBuilder>,
): Promise<number> {
  const told = totalOfPage(onPage, limit, offset);
  if (told !== undefined) return told;
  const query = count();
  const { sql, bindings } = query.toSQL();
  return totals.get(db, `${sql}\n${bindingsKey(bindings)}`, async () => runCount(cheapest ? await cheapest() : query));
}

/**
 * A count whose membership is decided record by record: whether a record is counted depends on its own rows
 * (those every write announces it for, core/write.ts) and on values bound into the query, never on another record.
 */
export interface CountedIds {
  /** The kind of the records counted, as the change feed names it. */
  resource: string;
  /**
   * Names the count: the same for the same question. Values that are brought up to date themselves (a search's
   * match set) are named, not bound, and read again by `ids` and `among`.
   */
  key: () => string;
  /**
   * A query selecting, as `id`, the ids counted, or those of `among` that are, with the values named by `key` read
   * now; or the ids themselves, sorted, when they are cheaper found from other sets. (In an object: a query builder
   * is a thenable, which a promise resolving to it would run.)
   */
  select: (among?: number[]) => Promise<{ query: Knex.QueryBuilder } | { ids: Int32Array }>;
}

/** The total of a list (as `listTotal`) counted as the set of its ids, brought up to date after writes. */
export async function setTotal(
  db: Executor,
  onPage: number,
  limit: number,
  offset: number,
  counted: CountedIds,
): Promise<number> {
  const told = totalOfPage(onPage, limit, offset);
  if (told !== undefined) return told;
  return (await countedIds(db, counted)).length;
}

/**
 * The ids a count counts, sorted and each once: memoised, brought up to date after writes. `at`: where the data
 * stands, when the caller has just read it.
 */
export async function countedIds(db: Executor, counted: CountedIds, at?: Standing): Promise<Int32Array> {
  const find = async () => {
    const found = await counted.select();
    return 'ids' in found ? found.ids : selectedIds(db, found.query);
  };
  return countedSets.get(db, counted.key(), find, (ids, since) => patched(db, counted, ids, since), at);
}

/**
 * The ids a query selects (as `column`), sorted and each once, read back as one text: tens of thousands of rows
 * would cost more to hand over than to find.
 */
export async function selectedIds(db: Executor, query: Knex.QueryBuilder, column = 'id'): Promise<Int32Array> {
  const all = db.raw(`${idsAsText(db, column)} as ids`);
  const [{ ids }] = (await db.from(query.as('c')).select(all)) as Array<{ ids: string | null }>;
  return ids ? sortedUnique(parsedIds(ids)) : new Int32Array(0);
}

/** Comma-separated ids read digit by digit: splitting 90 000 of them into strings costs 10 ms, this 1.5. */
function parsedIds(text: string): Int32Array {
  const ids = new Int32Array(text.length / 2 + 1);
  let count = 0;
  let id = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === COMMA) {
      ids[count++] = id;
      id = 0;
    } else id = id * 10 + code - ZERO;
  }
  ids[count++] = id;
  return ids.subarray(0, count);
}
const COMMA = 44;
const ZERO = 48;

/** `ids` sorted, each once. */
function sortedUnique(ids: Int32Array): Int32Array {
  ids.sort();
  let kept = 0;
  for (let i = 0; i < ids.length; i++) if (i === 0 || ids[i] !== ids[i - 1]) ids[kept++] = ids[i];
  return ids.slice(0, kept);
}

/** The ids both sorted sets hold, found by walking them side by side. */
export function intersection(a: Int32Array, b: Int32Array): Int32Array {
  const both = new Int32Array(Math.min(a.length, b.length));
  let count = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i] < b[j]) i++;
    else if (a[i] > b[j]) j++;
    else {
      both[count++] = a[i++];
      j++;
    }
  }
  return both.slice(0, count);
}

/**
 * `intersection`, the very array it gave last time for the same two sets: the match set of a common word asked again
 * with the same category is then one set, for which what is derived from it can be kept (times.ts gathers its
 * members' times). One is kept per `a`, and neither set is kept alive by it.
 */
export function sameIntersection(a: Int32Array, b: Int32Array): Int32Array {
  const last = lastIntersections.get(a);
  if (last && last.b.deref() === b) return last.both;
  const both = intersection(a, b);
  lastIntersections.set(a, { b: new WeakRef(b), both });
  return both;
}
const lastIntersections = new WeakMap<Int32Array, { b: WeakRef<Int32Array>; both: Int32Array }>();

/**
 * A set of counted ids brought up to date: only the records of its kind the feed names since are checked again.
 * The same set is kept when none of them moved in or out (a write elsewhere in the calendar).
 */
async function patched(db: Executor, counted: CountedIds, ids: Int32Array, since: number) {
  const changed = await changedAfter(db, since, MAX_PATCHED);
  if (!changed) return undefined;
  const recheck = [...new Set(changed.filter((c) => c.resource === counted.resource).map((c) => c.id))];
  if (!recheck.length) return ids;
  const found = await counted.select(recheck);
  const now = new Set('ids' in found ? found.ids : ((await found.query) as Array<{ id: unknown }>).map(idOf));
  return rechecked(ids, recheck, now);
}

/**
 * The sorted set `ids` once the records `checked` were checked again, `now` holding those of them that belong to it:
 * the same array when none moved in or out, else a new one spliced from runs of the old (a window's 500 000 ids are
 * copied in a fraction of a millisecond, where filtering and sorting them again took tens).
 */
export function rechecked(ids: Int32Array, checked: Iterable<number>, now: ReadonlySet<number>): Int32Array {
  const out: number[] = [];
  const added: number[] = [];
  for (const id of new Set(checked)) {
    const held = holds(ids, id);
    if (held && !now.has(id)) out.push(id);
    else if (!held && now.has(id)) added.push(id);
  }
  return out.length || added.length ? spliced(ids, out, added) : ids;
}

/** `ids` (sorted) without `out` (ids it holds) and with `added` (ids it does not), sorted. */
function spliced(ids: Int32Array, out: number[], added: number[]): Int32Array {
  const byId = (a: number, b: number) => a - b;
  out.sort(byId);
  added.sort(byId);
  const result = new Int32Array(ids.length - out.length + added.length);
  let from = 0; // the next id of `ids` to copy
  let to = 0;
  for (let i = 0, j = 0; i < out.length || j < added.length; ) {
    const removing = j >= added.length || (i < out.length && out[i] < added[j]);
    const id = removing ? out[i++] : added[j++];
    const at = lowerBound(ids, id, from);
    result.set(ids.subarray(from, at), to);
    to += at - from;
    from = removing ? at + 1 : at;
    if (!removing) result[to++] = id;
  }
  result.set(ids.subarray(from), to);
  return result;
}

/** The first index from `from` of the sorted `ids` whose id is not below `id`. */
function lowerBound(ids: Int32Array, id: number, from: number): number {
  let low = from;
  let high = ids.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (ids[middle] < id) low = middle + 1;
    else high = middle;
  }
  return low;
}

const idOf = (row: { id: unknown }) => toNumber(row.id);

/** Whether the sorted `ids` hold `id` (binary search). */
export function holds(ids: Int32Array, id: number): boolean {
  let low = 0;
  let high = ids.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    if (ids[middle] === id) return true;
    if (ids[middle] < id) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}

/** The total a page tells by itself: a short page ends the list; an empty first page has none. */
export function totalOfPage(onPage: number, limit: number, offset: number): number | undefined {
  if (onPage > 0 && onPage < limit) return offset + onPage;
  if (onPage === 0 && offset === 0) return 0;
  return undefined;
}

/**
 * The bindings as part of a memo's key: their text, or its SHA-256 when long (a common word's match set, bound as
 * one value, is hundreds of kilobytes at a million events; a thousand such keys would hold hundreds of megabytes).
 */
export function bindingsKey(bindings: readonly unknown[]): string {
  const text = JSON.stringify(bindings);
  return text.length <= 1024 ? text : `sha256:${createHash('sha256').update(text).digest('base64')}`;
}

async function runCount(query: Knex.QueryBuilder): Promise<number> {
  const [{ total }] = await query;
  return toNumber(total);
}
