/** Events: `posts` rows of type `event` with their `events` row, their organizers, and the list query. */
import type { Knex } from 'knex';
import type { Executor } from '../../db/types';
import { toNumber } from '../../db/dialect';
import { EVENT_FIELDS, type EventFields } from '../../kinds/fields/events';
import {
  fewMatches,
  forgetMatches,
  searchName,
  whereSearchMatches,
  withCurrentMatches,
  type SearchQuery,
} from '../../search/predicate';
import { venuesInBox } from '../../db/geo';
import { earliest, inWindow, type TimeBounds } from './times';
import {
  bindingsKey,
  countedIds,
  holds,
  intersection,
  sameIntersection,
  listTotal,
  selectedIds,
  setTotal,
  totalOfPage,
  type CountedIds,
} from '../../db/counts';
import { statement } from '../../db/statements';
import { normalisePost, type PostRow } from '../posts/repository';
import { columnNormaliser, selectedColumns } from '../fields';
import type { ListTables, ReadableFilter } from '../posts/modified';

export type { EventFields };

/** `revision` counts the event's writes (its iCalendar SEQUENCE). */
export type EventRow = PostRow & EventFields & { revision: number };

const normaliseColumns = columnNormaliser<EventRow>(EVENT_FIELDS);

function normalise(row: EventRow): EventRow {
  const event = normaliseColumns(normalisePost(row));
  event.revision = toNumber(row.revision ?? 0);
  return event;
}

/** `posts` columns first, then the event's (whose `status` repeats the post's). */
const COLUMNS = ['p.*', ...selectedColumns(EVENT_FIELDS, 'e'), 'e.revision'];

const joinedPosts = (db: Executor) => db('events as e').join('posts as p', 'p.id', 'e.post_id');

function selectEvents(db: Executor): Knex.QueryBuilder {
  return joinedPosts(db).select(COLUMNS);
}

const POST_AS_EVENT = statement((db, id: number) =>
  db('posts as p').leftJoin('events as e', 'e.post_id', 'p.id').where('p.id', id).select(COLUMNS),
);

/** The post with that id, with its event fields when it is an event (one query for `/events/{id}`). */
export async function findPostAsEvent(
  db: Executor,
  id: number,
): Promise<(Omit<EventRow, 'type'> & { type: string }) | undefined> {
  const [row] = await POST_AS_EVENT.all<EventRow>(db, id);
  return row && (row.type === 'event' ? normalise(row) : row);
}

export async function findEvent(db: Executor, id: number): Promise<EventRow | undefined> {
  const row = await selectEvents(db).where('e.post_id', id).first();
  return row && normalise(row);
}

export async function insertEvent(db: Executor, postId: number, fields: EventFields): Promise<void> {
  await db('events').insert({ post_id: postId, ...fields });
}

export async function updateEvent(db: Executor, postId: number, fields: Partial<EventFields>): Promise<void> {
  if (Object.keys(fields).length) await db('events').where({ post_id: postId }).update(fields);
}

/** One more change of the event (called in every event write's transaction: the feed's SEQUENCE grows). */
export async function bumpRevision(db: Executor, postId: number): Promise<void> {
  await db('events').where({ post_id: postId }).increment('revision', 1);
}

export async function setOrganizers(db: Executor, eventId: number, organizerIds: number[]): Promise<void> {
  await db('event_organizers').where({ event_id: eventId }).delete();
  const unique = [...new Set(organizerIds)];
  if (unique.length) {
    await db('event_organizers').insert(
      unique.map((organizer_id, position) => ({ event_id: eventId, organizer_id, position })),
    );
  }
}

/** The filters of `GET /events`, resolved: instants are UTC wall-clock strings, references are existing ids. */
export interface EventFilters extends TimeBounds {
  statuses: string[];
  /** Restricts rows to those the caller may read (needs the posts row joined). */
  readable?: ReadableFilter;
  /** `search`, in the request's language (each field's translation, else its original text). */
  search?: SearchQuery;
  categoryIds?: number[];
  tagIds?: number[];
  venueIds?: number[];
  organizerIds?: number[];
  featured?: boolean;
  /** true: venue has coordinates; false: it has none. */
  geolocated?: boolean;
  /** Restricts venues (their posts at the alias given) to those the caller may read: others count as unlinked. */
  readableVenues?: VenueRule;
  include?: number[];
  postParent?: number;
  /** Leaves out password-protected events (feeds). */
  unprotected?: boolean;
  /** Only the occurrences of this series (its series event's id). */
  seriesId?: number;
  /** Only the first occurrence of each series in the window. */
  collapseRecurring?: boolean;
}

/** Adds to a query of venues (joined with their posts at `posts`) the condition that the caller may read them. */
export type VenueRule = (query: Knex.QueryBuilder, posts: string) => Knex.QueryBuilder;

/**
 * The page of a list and its exact total (counted only when the page does not tell it); `counted`, the count that
 * decides which events the list holds when one does (with `toldByPage` when the page told the total).
 */
export async function listEvents(
  db: Executor,
  f: EventFilters,
  limit: number,
  offset: number,
): Promise<{ rows: EventRow[]; total: number; counted?: CountedIds; toldByPage: boolean }> {
  const counted = countedEvents(db, f);
  const amongMembers = counted && (manyMatches(f) || narrowedByPosts(f));
  const walked = amongMembers ? await pageAmongMembers(db, f, counted, limit, offset) : undefined;
  const { page, count } = listQueries(db, f);
  const rows: EventRow[] = walked?.rows ?? (await page().limit(limit).offset(offset)).map(normalise);
  const toldByPage = totalOfPage(rows.length, limit, offset) !== undefined;
  if (walked) return { ...walked, counted, toldByPage };
  if (counted) return { rows, total: await setTotal(db, rows.length, limit, offset, counted), counted, toldByPage };
  const cheapest = async () => listQueries(db, f, await termsDriveCount(db, f)).count();
  return { rows, total: await listTotal(db, rows.length, limit, offset, count, cheapest), toldByPage };
}

/** Whether the list searches for a word so common that its match set is bound as one value (search/predicate.ts). */
const manyMatches = (f: EventFilters) => f.search?.ids !== undefined && !fewMatches(f.search.ids);

/**
 * Whether the list keeps the events of some venues (those near a point, say) or organizers: the database finds its
 * page by walking the window in start order, each event tested (milliseconds at a million events, when the venues
 * hold few of them), while the members counted for the total tell it by their times.
 */
const narrowedByPosts = (f: EventFilters) => f.venueIds !== undefined || f.organizerIds !== undefined;

/** The first walk of the window for a page among members reads this many ids, each next one twice as many. */
const FIRST_WALK = 256;
/** Beyond this many events of the window before a page's last, the query pages (it binds the match set). */
const MAX_WALK = 32_768;

/**
 * The page and total of a list searching for a common word, or of some venues' or organizers' events, found from
 * the list's members (its counted set, memoised and brought up to date after writes). Those that may be the page's
 * are picked from the events' times held in memory (times.ts `earliest`) and looked up by id and sorted, as are few
 * members when the times are not held (a caller who reads only some events); else, for a common word (a deep page,
 * many members), they are found by walking the window's events in list order, ids only, each tested here against
 * the members, then the page's rows read by id. Paging in the query binds the match set, which the database makes
 * into a set of its own for each page (tens of thousands of ids: milliseconds), or on PostgreSQL scans for each
 * event walked. Undefined when the page lies too deep in the window for the walk to pay, or when a list without a
 * common word gains nothing from its members.
 */
async function pageAmongMembers(db: Executor, f: EventFilters, counted: CountedIds, limit: number, offset: number) {
  const members = await countedIds(db, counted);
  const total = members.length;
  if (offset >= total) return { rows: [], total };
  // the members hold every filter: the window's alone orders them
  const window = listQueries(db, { ...f, search: undefined, categoryIds: undefined, tagIds: undefined });
  const wanted = Math.min(offset + limit, total);
  // even a thousand members bound in the page's query cost the database milliseconds: the times narrow them first
  const picked = members.length > wanted ? await timedFirst(db, f, members, wanted) : undefined;
  const candidates = picked ?? (fewMatches(members) ? members : undefined);
  if (candidates && fewMatches(candidates)) {
    const rows: EventRow[] = await window
      .page()
      .whereIn('e.post_id', Array.from(candidates))
      .limit(limit)
      .offset(offset);
    return { rows: rows.map(normalise), total };
  }
  // venues' or organizers' events without their times: the database's page is as good as the walk
  if (!manyMatches(f)) return undefined;
  const ids = await walkedIds(window, members, wanted);
  if (!ids) return undefined;
  const rows: EventRow[] = await window.page().whereIn('e.post_id', ids.slice(offset));
  return { rows: rows.map(normalise), total };
}

/** The first `wanted` of `members` in the window's list order, found by walking it; undefined past `MAX_WALK`. */
async function walkedIds(window: ListQueries, members: Int32Array, wanted: number) {
  const found: number[] = [];
  for (let walked = 0, size = FIRST_WALK; found.length < wanted; walked += size, size *= 2) {
    if (walked >= MAX_WALK) return undefined;
    const batch = (await window.walk().limit(size).offset(walked)) as Array<{ id: unknown }>;
    for (const row of batch) {
      const id = toNumber(row.id);
      if (holds(members, id) && found.push(id) === wanted) break;
    }
    if (batch.length < size) break; // the window's end (a write since the members were read: the next read is exact)
  }
  return found;
}

/**
 * The events a list counts, as a set brought up to date after writes (db/counts.ts), when whether an event is
 * counted depends on its own rows alone: not with `geoloc` (its venue's coordinates) or `collapse_recurring` (the
 * other occurrences), nor for a series (its occurrence rows). Categories, venues, organizers and the window are
 * bound as resolved; the search is named, its match set read again each time (it is brought up to date itself).
 */
function countedEvents(db: Executor, filters: EventFilters): CountedIds | undefined {
  if (filters.geolocated !== undefined || filters.collapseRecurring || filters.seriesId !== undefined) return undefined;
  // a kept answer's proof holds the count (cache/proofs.ts): it keeps the search, not the match set of the day
  const f = filters.search ? { ...filters, search: forgetMatches(filters.search) } : filters;
  return {
    resource: 'event',
    key() {
      const { sql, bindings } = listQueries(db, { ...f, search: undefined })
        .count()
        .toSQL();
      return `${sql}\n${bindingsKey(bindings)}\n${f.search ? searchName(db, f.search) : ''}`;
    },
    async select(among) {
      const now = f.search ? { ...f, search: await withCurrentMatches(db, f.search) } : f;
      const matches = now.search?.ids;
      // the match set is at hand: which of a few ids it holds is a look-up here, not a bound set read per row
      if (among && matches)
        return { query: listQueries(db, { ...now, search: undefined }).among(held(matches, among)) };
      if (among) return { query: listQueries(db, now).among(among) };
      if (matches && !fewMatches(matches)) return { ids: await countedFromSets(db, now, matches) };
      const linksDrive = await termsDriveCount(db, now);
      // without a search, the terms' links would drive: each looked up in the window's events read here instead
      if (linksDrive && !now.search) return { ids: await countedFromSets(db, now) };
      // a window alone: its events found from their times (a window never asked before costs no read of its ids)
      const windowOnly = !now.search && !now.categoryIds && !now.tagIds;
      const timed = windowOnly ? await timedIds(db, now) : undefined;
      return timed ? { ids: timed } : { query: listQueries(db, now, linksDrive).ids() };
    },
  };
}

/**
 * The ids a list counts when a search matches many events, or when a common category's links would drive the count:
 * those of the match set and those linked to each group of terms (memoised) intersected here, then those of them
 * its other filters keep tested against the times of the events they keep, held in memory (times.ts). Testing each
 * event of the window against a bound set of 50 000 ids in SQL costs several times more, and testing each link of a
 * common category (and looking up its event) more still. Without the times (a caller who reads only some events,
 * a venue's list, times not plain), the ids of the window are read (a few thousand to hundreds of thousands, read
 * back in one text) and intersected too. Exported for the tests.
 */
export async function countedFromSets(db: Executor, f: EventFilters, matches?: Int32Array): Promise<Int32Array> {
  let ids = matches;
  for (const terms of [f.categoryIds, f.tagIds]) {
    if (!terms) continue;
    const linked = await countedIds(db, linkedEvents(db, terms));
    ids = ids ? sameIntersection(ids, linked) : linked;
  }
  const found = await timedIds(db, f, ids);
  if (found) return found;
  const others = { ...f, search: undefined, categoryIds: undefined, tagIds: undefined };
  const window = await selectedIds(db, listQueries(db, others).ids());
  return ids ? intersection(window, ids) : window;
}

/**
 * Those of `candidates` (every event when none are given) that the list's filters other than its search, categories
 * and tags keep, found from the times of the events they keep (times.ts); undefined when those cannot decide. Only
 * for the few classes of callers (statuses, protected or not): a venue's or an organizer's events are few, and each
 * would hold a place among the times kept.
 */
function timedIds(db: Executor, f: EventFilters, candidates?: Int32Array): Promise<Int32Array | undefined> {
  const timed = timedQuery(db, f);
  return timed ? inWindow(db, timed.kept, timed.bounds, candidates) : Promise.resolve(undefined);
}

/**
 * Of a list's `members`, those that may be its first `count` (times.ts `earliest`); undefined as `timedIds`. The
 * members are the venues' and organizers' already: the times of the events the list's other filters keep tell
 * their order.
 */
function timedFirst(db: Executor, f: EventFilters, members: Int32Array, count: number) {
  const timed = timedQuery(db, { ...f, venueIds: undefined, organizerIds: undefined });
  return timed ? earliest(db, timed.kept, members, count) : Promise.resolve(undefined);
}

/** The window of a list and the query of the events its other filters keep, when their times are held. */
function timedQuery(db: Executor, f: EventFilters) {
  const narrowed = f.venueIds ?? f.organizerIds ?? f.include ?? f.postParent ?? f.featured ?? f.readable;
  if (narrowed !== undefined) return undefined;
  const others = { ...f, search: undefined, categoryIds: undefined, tagIds: undefined };
  const { startFrom, endTo, startsBefore, startsAfter, endsBefore, endsAfter, ...timeless } = others;
  const bounds = { startFrom, endTo, startsBefore, startsAfter, endsBefore, endsAfter };
  return { bounds, kept: () => applyFilters(db, eventsOf(db, timeless, LIST), timeless, LIST) };
}

/** The events linked to any of `terms`: a set brought up to date like those of lists (the links are the event's). */
function linkedEvents(db: Executor, terms: number[]): CountedIds {
  const links = () => db('term_relationships as r').whereIn('r.term_id', terms).select({ id: 'r.post_id' });
  return {
    resource: 'event',
    key: () => `events linked to terms ${JSON.stringify([...terms].sort((a, b) => a - b))}`,
    select: async (among) => ({ query: among ? links().whereIn('r.post_id', among) : links() }),
  };
}

/**
 * The queries of `GET /events` (`ListQueries`). Exported for the tests of plans.
 * `linksDrive`: the count finds the events of its categories and tags from their links (`termsDriveCount`).
 */
export function listQueries(db: Executor, f: EventFilters, linksDrive = false): ListQueries {
  const counted = () => applyFilters(db, eventsOf(db, f, LIST), f, LIST, linksDrive);
  const inListOrder = (query: Knex.QueryBuilder) =>
    f.include
      ? query.orderBy('p.date_utc').orderBy('e.post_id')
      : query.orderBy('e.start_utc').orderBy('p.date_utc').orderBy('e.post_id');
  return {
    page: () => inListOrder(applyFilters(db, selectEvents(db), f, LIST)),
    walk: () => inListOrder(applyFilters(db, joinedPosts(db), f, LIST)).select({ id: 'e.post_id' }),
    count: () => counted().count({ total: '*' }),
    ids: () => counted().select({ id: 'e.post_id' }),
    among: (ids) =>
      applyFilters(db, eventsOf(db, f, LIST).whereIn('e.post_id', ids), f, LIST).select({ id: 'e.post_id' }),
  };
}

/**
 * The queries of a list: its rows in list order, their ids in list order, their count, the ids counted, which of
 * some ids are counted.
 */
export interface ListQueries {
  page: () => Knex.QueryBuilder;
  walk: () => Knex.QueryBuilder;
  count: () => Knex.QueryBuilder;
  ids: () => Knex.QueryBuilder;
  among: (ids: number[]) => Knex.QueryBuilder;
}

/**
 * Whether a count of events in categories or tags is cheaper found from the terms' links (each linked event looked
 * up) than by walking the window (each event's links looked for, one look-up per term). Either is exact; each
 * costs about the look-ups it makes, so the window is measured up to the terms' published events (kept on the
 * terms) over their number: a window of a week walks a few hundred events, the whole future of a million-event
 * calendar half a million, against a category's tens of thousands of links.
 */
async function termsDriveCount(db: Executor, f: EventFilters): Promise<boolean> {
  const ids = [...(f.categoryIds ?? []), ...(f.tagIds ?? [])];
  if (!ids.length) return false;
  const [{ links }] = await db('terms').whereIn('id', ids).sum({ links: 'count' });
  // an event of the window costs a look-up per term asked for, a link one
  const cap = Math.ceil(toNumber(links) / ids.length) + 1;
  const windowOnly: EventFilters = { ...f, categoryIds: undefined, tagIds: undefined, search: undefined };
  const inWindow = applyFilters(db, eventsOf(db, windowOnly, LIST), windowOnly, LIST)
    .select(db.raw('1'))
    .limit(cap);
  const [{ rows }] = await db.from(inWindow.as('w')).count({ rows: '*' });
  return toNumber(rows) >= cap;
}

/** Those of `ids` that `set` holds. */
function held(set: ArrayLike<number>, ids: number[]): number[] {
  const wanted = new Set(ids);
  const found: number[] = [];
  for (let i = 0; i < set.length; i++) if (wanted.has(set[i])) found.push(set[i]);
  return found;
}

/** The aliases of the events row and the posts row in a list query (its subqueries use others). */
type Tables = Required<ListTables>;
const LIST: Tables = { e: 'e', p: 'p' };

/** `events`, joined with `posts` only when a filter reads the post. */
function eventsOf(db: Executor, f: EventFilters, { e, p }: Tables): Knex.QueryBuilder {
  const events = db(`events as ${e}`);
  return f.readable || f.unprotected ? events.join(`posts as ${p}`, `${p}.id`, `${e}.post_id`) : events;
}

function applyFilters(
  db: Executor,
  q: Knex.QueryBuilder,
  f: EventFilters,
  { e, p }: Tables,
  linksDrive = false,
): Knex.QueryBuilder {
  q.where(`${e}.hide_from_listings`, false).whereIn(`${e}.status`, f.statuses);
  if (f.readable) f.readable(q, { e, p });
  if (f.startFrom) q.where(`${e}.start_utc`, '>=', f.startFrom);
  // the implied start bound lets the list index bound the range
  if (f.endTo) q.where(`${e}.end_utc`, '<=', f.endTo).where(`${e}.start_utc`, '<=', f.endTo);
  if (f.startsBefore) q.where(`${e}.start_utc`, '<', f.startsBefore);
  if (f.startsAfter) q.where(`${e}.start_utc`, '>', f.startsAfter);
  if (f.endsBefore) q.where(`${e}.end_utc`, '<', f.endsBefore).where(`${e}.start_utc`, '<', f.endsBefore);
  if (f.endsAfter) q.where(`${e}.end_utc`, '>', f.endsAfter);
  // links that drive, with the match set at hand: each link is tested against it before its event is looked up
  let linkSearch = linksDrive && f.search?.ids ? f.search : undefined;
  if (f.search && !linkSearch) whereSearchMatches(db, q, `${e}.post_id`, f.search);
  for (const ids of [f.categoryIds, f.tagIds]) {
    if (!ids) continue;
    const links = db('term_relationships as r');
    if (!linksDrive) {
      q.whereExists(links.whereRaw('r.post_id = ??', [`${e}.post_id`]).whereIn('r.term_id', ids));
      continue;
    }
    links.whereIn('r.term_id', ids);
    if (linkSearch) whereSearchMatches(db, links, 'r.post_id', linkSearch);
    linkSearch = undefined;
    q.whereIn(`${e}.post_id`, links.select('r.post_id'));
  }
  if (f.venueIds) q.whereIn(`${e}.venue_id`, f.venueIds);
  // the organizers' events (a few hundred) drive the plan, rather than every event of the window
  if (f.organizerIds) {
    q.whereIn(
      `${e}.post_id`,
      db('event_organizers as eo').select('eo.event_id').whereIn('eo.organizer_id', f.organizerIds),
    );
  }
  if (f.featured !== undefined) q.where(`${e}.featured`, f.featured);
  if (f.geolocated !== undefined) {
    const located = db('venues as v')
      .whereRaw('v.post_id = ??', [`${e}.venue_id`])
      .whereNotNull('v.geo_lat')
      .whereNotNull('v.geo_lng');
    if (f.readableVenues) f.readableVenues(located.join('posts as vp', 'vp.id', 'v.post_id'), 'vp');
    if (f.geolocated) q.whereExists(located);
    else q.whereNotExists(located);
  }
  if (f.include) q.whereIn(`${e}.post_id`, f.include);
  if (f.postParent !== undefined) q.where(`${e}.post_parent`, f.postParent);
  if (f.unprotected) q.where(`${p}.password`, '');
  if (f.seriesId !== undefined) {
    const id = f.seriesId;
    const members = db('series_occurrences').where('series_id', id).select('event_id');
    q.where((w) => {
      w.where(`${e}.post_id`, id).orWhereIn(`${e}.post_id`, members);
    });
  }
  if (f.collapseRecurring) q.whereNotExists(earlierOccurrence(db, f, { e, p }));
  return q;
}

/**
 * An earlier occurrence of the same series that the list shows too (every filter of the list holds for it): the
 * event is then not the first of its series in the list (`collapse_recurring`). A detached occurrence moved to
 * another venue, say, is not in a `venue` list, so the series' next occurrence there is its first.
 */
function earlierOccurrence(db: Executor, f: EventFilters, { e }: Tables): Knex.QueryBuilder {
  const earlier: Tables = { e: `${e}2`, p: `p_${e}2` };
  const q = eventsOf(db, f, earlier)
    .join('series_occurrences as so2', 'so2.event_id', `${earlier.e}.post_id`)
    .join('series_occurrences as so', 'so.series_id', 'so2.series_id')
    .whereRaw('so.event_id = ??', [`${e}.post_id`])
    .whereRaw('(?? < ?? or (?? = ?? and ?? < ??))', [
      `${earlier.e}.start_utc`,
      `${e}.start_utc`,
      `${earlier.e}.start_utc`,
      `${e}.start_utc`,
      `${earlier.e}.post_id`,
      `${e}.post_id`,
    ]);
  return applyFilters(db, q, { ...f, collapseRecurring: false }, earlier).select(db.raw('1'));
}

const EARTH_RADIUS_KM = 6371;

/**
 * Venues within `radiusKm` of a point: a bounding box the spatial index serves (db/geo.ts), then the exact
 * great-circle distance (haversine, written with functions both engines have). Lists then read the events of these
 * venues through the venue index, in the window, instead of testing every event of the window. `readable` keeps the
 * venues the caller may read.
 */
export async function venueIdsNear(
  db: Executor,
  { lat, lng, radiusKm }: { lat: number; lng: number; radiusKm: number },
  readable?: VenueRule,
): Promise<number[]> {
  const dLat = (radiusKm / EARTH_RADIUS_KM) * (180 / Math.PI);
  const cosLat = Math.cos((lat * Math.PI) / 180);
  const dLng = cosLat > 1e-6 ? Math.min(180, dLat / cosLat) : 180;
  const longitudes = lng - dLng >= -180 && lng + dLng <= 180 ? { west: lng - dLng, east: lng + dLng } : {};
  const query = venuesInBox(db, { south: lat - dLat, north: lat + dLat, ...longitudes }).select('v.post_id');
  // each venue's post by its primary key: venues the caller may not read are not near anything (D63)
  if (readable) readable(query.join('posts as vp', 'vp.id', 'v.post_id'), 'vp');
  // 2r·asin(√(sin²(Δφ/2) + cos φ1 cos φ2 sin²(Δλ/2))) ≤ d  ⇔  the term under the root ≤ sin²(d/2r)
  const limit = Math.sin(Math.min(Math.PI / 2, radiusKm / (2 * EARTH_RADIUS_KM))) ** 2;
  const rows: Array<{ post_id: number }> = await query
    .whereRaw(
      `power(sin(radians(v.geo_lat - ?) / 2), 2)
        + cos(radians(?)) * cos(radians(v.geo_lat)) * power(sin(radians(v.geo_lng - ?) / 2), 2) <= ?`,
      [lat, lat, lng, limit],
    )
    .orderBy('v.post_id');
  return rows.map((row) => toNumber(row.post_id));
}
