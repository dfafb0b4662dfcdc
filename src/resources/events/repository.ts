/** Events: `posts` rows of type `event` with their `events` row, their organizers, and the list query. */
import type { Knex } from 'knex';
import type { Executor } from '../../db/knex';
import { toBoolean, toNumber } from '../../db/dialect';
import { whereSearchMatches, type SearchQuery } from '../../search/predicate';
import { normalisePost, type PostRow } from '../posts/repository';

export interface EventFields {
  status: string;
  start_local: string;
  end_local: string;
  start_utc: string;
  end_utc: string;
  timezone: string;
  all_day: boolean;
  /** JSON array of the cost entries, or null. */
  cost: string | null;
  currency_symbol: string;
  currency_position: string;
  website: string | null;
  show_map: boolean;
  show_map_link: boolean;
  hide_from_listings: boolean;
  sticky: boolean;
  featured: boolean;
  venue_id: number | null;
  post_parent: number | null;
  image_id: number | null;
}

export type EventRow = PostRow & EventFields;

const nullableId = (value: unknown) => (value === null || value === undefined ? null : toNumber(value));

function normalise(row: EventRow): EventRow {
  return {
    ...normalisePost(row),
    all_day: toBoolean(row.all_day),
    show_map: toBoolean(row.show_map),
    show_map_link: toBoolean(row.show_map_link),
    hide_from_listings: toBoolean(row.hide_from_listings),
    sticky: toBoolean(row.sticky),
    featured: toBoolean(row.featured),
    venue_id: nullableId(row.venue_id),
    post_parent: nullableId(row.post_parent),
    image_id: nullableId(row.image_id),
  };
}

/** `posts` columns first, then the event's (whose `status` repeats the post's). */
const COLUMNS = ['p.*', 'e.start_local', 'e.end_local', 'e.start_utc', 'e.end_utc', 'e.timezone', 'e.all_day', 'e.cost',
  'e.currency_symbol', 'e.currency_position', 'e.website', 'e.show_map', 'e.show_map_link', 'e.hide_from_listings',
  'e.sticky', 'e.featured', 'e.venue_id', 'e.post_parent', 'e.image_id'];

function selectEvents(db: Executor): Knex.QueryBuilder {
  return db('events as e').join('posts as p', 'p.id', 'e.post_id').select(COLUMNS);
}

/** The post with that id, with its event fields when it is an event (one query for `/events/{id}`). */
export async function findPostAsEvent(db: Executor, id: number): Promise<(Omit<EventRow, 'type'> & { type: string }) | undefined> {
  const row = await db('posts as p').leftJoin('events as e', 'e.post_id', 'p.id').where('p.id', id).first(COLUMNS);
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

/** Organizer ids of each event, in their order. */
export async function organizerIdsOf(db: Executor, eventIds: number[]): Promise<Map<number, number[]>> {
  const byEvent = new Map<number, number[]>();
  if (!eventIds.length) return byEvent;
  const rows: Array<{ event_id: number; organizer_id: number }> = await db('event_organizers')
    .whereIn('event_id', eventIds).orderBy('event_id').orderBy('position').select('event_id', 'organizer_id');
  for (const row of rows) {
    const id = toNumber(row.event_id);
    byEvent.set(id, [...(byEvent.get(id) ?? []), toNumber(row.organizer_id)]);
  }
  return byEvent;
}

export async function setOrganizers(db: Executor, eventId: number, organizerIds: number[]): Promise<void> {
  await db('event_organizers').where({ event_id: eventId }).delete();
  const unique = [...new Set(organizerIds)];
  if (unique.length) {
    await db('event_organizers').insert(unique.map((organizer_id, position) => ({ event_id: eventId, organizer_id, position })));
  }
}

/** The filters of `GET /events`, resolved: instants are UTC wall-clock strings, references are existing ids. */
export interface EventFilters {
  statuses: string[];
  /** Restricts rows to those the caller may read (needs `p` joined). */
  readable?: (query: Knex.QueryBuilder) => Knex.QueryBuilder;
  startFrom?: string;
  endTo?: string;
  startsBefore?: string;
  startsAfter?: string;
  endsBefore?: string;
  endsAfter?: string;
  /** `search`, in the request's language (each field's translation, else its original text). */
  search?: SearchQuery;
  categoryIds?: number[];
  tagIds?: number[];
  venueIds?: number[];
  organizerIds?: number[];
  featured?: boolean;
  /** true: venue has coordinates; false: it has none. */
  geolocated?: boolean;
  near?: { lat: number; lng: number; radiusKm: number };
  include?: number[];
  postParent?: number;
  /** Only the occurrences of this series (its series event's id). */
  seriesId?: number;
  /** Only the first occurrence of each series in the window. */
  collapseRecurring?: boolean;
}

export async function listEvents(db: Executor, f: EventFilters, limit: number, offset: number): Promise<{ rows: EventRow[]; total: number }> {
  const needsPost = Boolean(f.readable);
  const counted = applyFilters(db, needsPost ? db('events as e').join('posts as p', 'p.id', 'e.post_id') : db('events as e'), f);
  const [{ total }] = await counted.count({ total: '*' });
  if (!toNumber(total)) return { rows: [], total: 0 };
  const page = applyFilters(db, selectEvents(db), f);
  if (f.include) page.orderBy('p.date_utc').orderBy('e.post_id');
  else page.orderBy('e.start_utc').orderBy('p.date_utc').orderBy('e.post_id');
  const rows: EventRow[] = await page.limit(limit).offset(offset);
  return { rows: rows.map(normalise), total: toNumber(total) };
}

function applyFilters(db: Executor, q: Knex.QueryBuilder, f: EventFilters): Knex.QueryBuilder {
  q.where('e.hide_from_listings', false).whereIn('e.status', f.statuses);
  if (f.readable) f.readable(q);
  if (f.startFrom) q.where('e.start_utc', '>=', f.startFrom);
  if (f.endTo) q.where('e.end_utc', '<=', f.endTo).where('e.start_utc', '<=', f.endTo); // implied: lets the list index bound the range
  if (f.startsBefore) q.where('e.start_utc', '<', f.startsBefore);
  if (f.startsAfter) q.where('e.start_utc', '>', f.startsAfter);
  if (f.endsBefore) q.where('e.end_utc', '<', f.endsBefore).where('e.start_utc', '<', f.endsBefore);
  if (f.endsAfter) q.where('e.end_utc', '>', f.endsAfter);
  if (f.search) whereSearchMatches(db, q, 'e.post_id', f.search);
  for (const ids of [f.categoryIds, f.tagIds]) {
    if (ids) q.whereExists(db('term_relationships as r').whereRaw('r.post_id = e.post_id').whereIn('r.term_id', ids));
  }
  if (f.venueIds) q.whereIn('e.venue_id', f.venueIds);
  if (f.organizerIds) q.whereExists(db('event_organizers as eo').whereRaw('eo.event_id = e.post_id').whereIn('eo.organizer_id', f.organizerIds));
  if (f.featured !== undefined) q.where('e.featured', f.featured);
  if (f.geolocated !== undefined) {
    const located = db('venues as v').whereRaw('v.post_id = e.venue_id').whereNotNull('v.geo_lat').whereNotNull('v.geo_lng');
    if (f.geolocated) q.whereExists(located);
    else q.whereNotExists(located);
  }
  if (f.near) q.whereIn('e.venue_id', venuesNear(db, f.near));
  if (f.include) q.whereIn('e.post_id', f.include);
  if (f.postParent !== undefined) q.where('e.post_parent', f.postParent);
  if (f.seriesId !== undefined) {
    const id = f.seriesId;
    q.where((w) => { w.where('e.post_id', id).orWhereIn('e.post_id', db('series_occurrences').where('series_id', id).select('event_id')); });
  }
  if (f.collapseRecurring) q.whereNotExists(earlierOccurrence(db, f));
  return q;
}

/**
 * An earlier occurrence of the same series that the list shows too (same window, statuses and visibility): the
 * event is then not the first of its series in the window (`collapse_recurring`).
 */
function earlierOccurrence(db: Executor, f: EventFilters): Knex.QueryBuilder {
  const q = db('series_occurrences as so').join('series_occurrences as so2', 'so2.series_id', 'so.series_id')
    .join('events as e2', 'e2.post_id', 'so2.event_id').whereRaw('so.event_id = e.post_id')
    .whereRaw('(e2.start_utc < e.start_utc or (e2.start_utc = e.start_utc and e2.post_id < e.post_id))')
    .where('e2.hide_from_listings', false).whereIn('e2.status', f.statuses);
  if (f.startFrom) q.where('e2.start_utc', '>=', f.startFrom);
  if (f.endTo) q.where('e2.end_utc', '<=', f.endTo);
  if (f.startsBefore) q.where('e2.start_utc', '<', f.startsBefore);
  if (f.startsAfter) q.where('e2.start_utc', '>', f.startsAfter);
  if (f.endsBefore) q.where('e2.end_utc', '<', f.endsBefore);
  if (f.endsAfter) q.where('e2.end_utc', '>', f.endsAfter);
  return q.select(db.raw('1'));
}

const EARTH_RADIUS_KM = 6371;

/**
 * Venues within `radiusKm` of a point: a bounding box the (geo_lat, geo_lng) index can serve, then the exact
 * great-circle distance (haversine, written with functions both engines have).
 */
function venuesNear(db: Executor, { lat, lng, radiusKm }: { lat: number; lng: number; radiusKm: number }): Knex.QueryBuilder {
  const dLat = (radiusKm / EARTH_RADIUS_KM) * (180 / Math.PI);
  const cosLat = Math.cos((lat * Math.PI) / 180);
  const dLng = cosLat > 1e-6 ? Math.min(180, dLat / cosLat) : 180;
  const query = db('venues as v').select('v.post_id')
    .whereBetween('v.geo_lat', [lat - dLat, lat + dLat]);
  if (lng - dLng >= -180 && lng + dLng <= 180) query.whereBetween('v.geo_lng', [lng - dLng, lng + dLng]);
  // 2r·asin(√(sin²(Δφ/2) + cos φ1 cos φ2 sin²(Δλ/2))) ≤ d  ⇔  the term under the root ≤ sin²(d/2r)
  const limit = Math.sin(Math.min(Math.PI / 2, radiusKm / (2 * EARTH_RADIUS_KM))) ** 2;
  return query.whereRaw(
    `power(sin(radians(v.geo_lat - ?) / 2), 2) + cos(radians(?)) * cos(radians(v.geo_lat)) * power(sin(radians(v.geo_lng - ?) / 2), 2) <= ?`,
    [lat, lat, lng, limit],
  );
}
