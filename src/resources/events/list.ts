/**
 * `GET /events` parameters to repository filters (docs/compatibility.md §5.1, §3.3; docs/decisions.md D10, D27): the
 * default window, inclusive day rounding versus strict mode, relative parameters dropping the defaults, `include`
 * ignoring every date, and references that must exist.
 */
import type { DateTime } from 'luxon';
import type { operations } from '../../../generated/schema';
import type { Config } from '../../config';
import type { Executor } from '../../db/types';
import { now as clockNow } from '../../domain/clock';
import { endOfDay, formatUtc, parseDateInput, startOfDay } from '../../domain/dates';
import { invalidParam, ticketsUnavailable } from '../../core/errors';
import { isTrue, isTruthyText } from '../../core/flags';
import type { ListSource, Representation } from '../../core/lists';
import { can, canRead, type Caller, type OwnedRecord } from '../../users/roles';
import { eventBytes } from '../records';
import { withModifiedRange } from '../posts/modified';
import { eventExists, ownersOf } from '../posts/repository';
import { roundCoordinate } from '../../domain/geo';
import { listStatuses, whereLinkedReadable, whereReadable } from '../posts/rules';
import { resolveTermRefs, withDescendants, type Taxonomy } from '../terms/repository';
import { listEvents, venueIdsNear, type EventFilters, type EventRow } from './repository';
import { prepareSearch } from '../../search/predicate';
import { unlocked, unlockedRule } from './access';

export type EventListQuery = NonNullable<operations['listEvents']['parameters']['query']>;

const RELATIVE = ['starts_before', 'starts_after', 'ends_before', 'ends_after'] as const;
type DateParam = 'start_date' | 'end_date' | (typeof RELATIVE)[number];

/** The window a list covers without date filters: from `daysBack` days before today to `monthsAhead` months after. */
export interface DefaultWindow {
  daysBack: number;
  monthsAhead: number;
}

const LIST_WINDOW: DefaultWindow = { daysBack: 1, monthsAhead: 24 };

/** The filters of an events list, and the password the request sent (the events it opens show every field). */
export type EventListFilters = EventFilters & { password?: string };

/** `GET /events` and a series' occurrences: the list query's pages. */
export const EVENT_LIST: ListSource<EventListQuery, EventListFilters, EventRow> = {
  async filters({ db, config, caller, language }, q) {
    const filters = await eventFilters(db, config, caller, q, language);
    return { ...withModifiedRange(filters, q, config.siteTimezone), password: q.password };
  },
  async page({ db, witness }, filters, { limit, offset }) {
    const page = await listEvents(db, filters, limit, offset);
    const { counted, total, toldByPage } = page;
    witness?.list(counted && { counted, total, toldByPage });
    return page;
  },
};

/** Each event of a page as the bytes of its JSON, protected fields blanked unless the caller or password opens them. */
export const eventListBytes: Representation<EventListFilters, EventRow, Buffer[]> = (reader, rows, { password }) =>
  eventBytes(reader, rows, (row) => ({ blanked: !unlocked(row, reader.caller, password) }));

export async function eventFilters(
  db: Executor,
  config: Readonly<Config>,
  caller: Caller | undefined,
  q: EventListQuery,
  language: string,
  now = clockNow(),
  window = LIST_WINDOW,
): Promise<EventFilters> {
  if (q.ticketed !== undefined && isTrue(q.ticketed)) {
    throw ticketsUnavailable();
  }
  const statuses = listStatuses(caller, 'events', q.status);
  const filters: EventFilters = {
    statuses,
    readableVenues: (query, posts) => whereLinkedReadable(query, caller, 'venues', posts),
    readable: needsReadableFilter(caller)
      ? (query, { e = 'e', p = 'p' } = { p: 'p' }) =>
          whereReadable(query, caller, 'events', `${e}.status`, () => `${p}.author_id`)
      : undefined,
    ...(q.include ? { include: q.include } : dates(config, q, now, window)),
  };
  if (q.search) {
    // callers who may not read a protected event's text do not match on it (D64)
    const protect = unlockedRule(caller, q.password);
    filters.search = await prepareSearch(db, 'event', q.search, language, protect);
  }
  if (q.categories) filters.categoryIds = await termFilter(db, 'tribe_events_cat', 'categories', q.categories, true);
  if (q.tags) filters.tagIds = await termFilter(db, 'post_tag', 'tags', q.tags, false);
  if (q.venue) filters.venueIds = await postFilter(db, caller, 'venue', q.venue);
  if (q.organizer) filters.organizerIds = await postFilter(db, caller, 'organizer', q.organizer);
  if (q.featured !== undefined) filters.featured = isTrue(q.featured);
  if (q.geoloc !== undefined) filters.geolocated = isTrue(q.geoloc);
  if (q.geoloc_lat !== undefined || q.geoloc_lng !== undefined) {
    if (q.geoloc_lat === undefined) throw invalidParam('geoloc_lat', 'geoloc_pair');
    if (q.geoloc_lng === undefined) throw invalidParam('geoloc_lng', 'geoloc_pair');
    const point = { lat: roundCoordinate(q.geoloc_lat), lng: roundCoordinate(q.geoloc_lng) };
    const near = await venueIdsNear(db, { ...point, radiusKm: q.geoloc_radius ?? 25 }, filters.readableVenues);
    const found = new Set(near);
    filters.venueIds = filters.venueIds ? filters.venueIds.filter((id) => found.has(id)) : near;
  }
  if (q.collapse_recurring !== undefined) filters.collapseRecurring = isTrue(q.collapse_recurring);
  if (q.post_parent !== undefined) {
    if (!(await eventExists(db, q.post_parent))) throw invalidParam('post_parent', 'event_invalid_id');
    filters.postParent = q.post_parent;
  }
  return filters;
}

/**
 * Only callers who may ask for unpublished statuses but not read everyone's (authors, contributors) need the
 * per-item filter; the others see `publish` only, or everything.
 */
function needsReadableFilter(caller: Caller | undefined): boolean {
  return can(caller, 'edit_events') && !(can(caller, 'edit_others_events') && can(caller, 'read_private_events'));
}

/**
 * The date window. Inclusive mode (default) reads values in the site's zone and widens them to whole days: `start_date`
 * to 00:00:00, the others to 23:59:59. Strict mode reads values without an offset as UTC, to the second. Without any
 * `starts_*`/`ends_*`, missing `start_date`/`end_date` default to yesterday 00:00 and 24 months ahead (site zone).
 */
function dates(config: Readonly<Config>, q: EventListQuery, now: Date, window: DefaultWindow): Partial<EventFilters> {
  const strict = q.strict_dates !== undefined && isTruthyText(q.strict_dates);
  const zone = strict ? 'UTC' : config.siteTimezone;
  const at = (name: DateParam, round: 'start' | 'end'): string | undefined => {
    const value = q[name];
    if (value === undefined) return undefined;
    const instant = parseDateInput(value, zone, now);
    if (!instant) throw invalidParam(name, 'date_invalid');
    return formatUtc(strict ? instant : rounded(instant, round, config.siteTimezone));
  };
  const filters: Partial<EventFilters> = {
    startFrom: at('start_date', 'start'),
    endTo: at('end_date', 'end'),
    startsBefore: at('starts_before', 'end'),
    startsAfter: at('starts_after', 'end'),
    endsBefore: at('ends_before', 'end'),
    endsAfter: at('ends_after', 'end'),
  };
  if (!RELATIVE.some((name) => q[name] !== undefined)) {
    const site = config.siteTimezone;
    const today = parseDateInput('today', site, now) as DateTime;
    filters.startFrom ??= formatUtc(startOfDay(today.minus({ days: window.daysBack }), site));
    filters.endTo ??= formatUtc(endOfDay(today.plus({ months: window.monthsAhead }), site));
  }
  return filters;
}

function rounded(instant: DateTime, round: 'start' | 'end', zone: string): DateTime {
  return round === 'start' ? startOfDay(instant, zone) : endOfDay(instant, zone);
}

/** Category or tag references (ids or slugs) that must all exist; categories include their descendants. */
async function termFilter(
  db: Executor,
  taxonomy: Taxonomy,
  param: string,
  refs: Array<number | string>,
  descendants: boolean,
): Promise<number[]> {
  const { ids, unknown } = await resolveTermRefs(db, taxonomy, refs);
  if (unknown.length) throw invalidParam(param, 'term_unknown');
  return descendants ? withDescendants(db, taxonomy, ids) : ids;
}

/**
 * Venue or organizer ids that must all exist. Those the caller may not read match nothing, as if the events did not
 * link them (docs/decisions.md D63, D120): a filter finds an event only through what its answer would embed.
 */
async function postFilter(
  db: Executor,
  caller: Caller | undefined,
  type: 'venue' | 'organizer',
  ids: number[],
): Promise<number[]> {
  const owners = await ownersOf(db, type, ids);
  if (ids.some((id) => !owners.has(id)))
    throw invalidParam(type, type === 'venue' ? 'venue_invalid' : 'organizer_invalid');
  const plural = type === 'venue' ? 'venues' : 'organizers';
  return ids.filter((id) => {
    const owner = owners.get(id) as OwnedRecord;
    return owner.status !== 'trash' && canRead(caller, plural, owner);
  });
}
