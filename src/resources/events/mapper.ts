/**
 * Event rows to the wire (docs/compatibility.md §1.2, §1.3, §3.4, §7.2). Everything a page of events links to is loaded
 * in a fixed number of queries (`loadRelations`), never one per event.
 */
import type { components } from '../../../generated/schema';
import type { Executor } from '../../db/types';
import { costOf } from '../../domain/cost';
import { dateDetails, fromUtc, isoWithOffset, timezoneAbbr } from '../../domain/dates';
import { imagesByIds, toWireImage, type ImageRow } from '../images/images';
import { organizersOfEvents, type OrganizerRow } from '../organizers/repository';
import { organizerJsonLd, toWireOrganizer } from '../organizers/mapper';
import {
  content,
  dropEmpty,
  globalIds,
  postUrl,
  publicationTimes,
  stripTags,
  type RenderContext,
} from '../posts/mapper';
import { termsOfPosts, type TermRow } from '../terms/repository';
import { venuesByIds, type VenueRow } from '../venues/repository';
import { toWireVenue, venueJsonLd } from '../venues/mapper';
import type { EventRow } from './repository';
import { WIRE_FIELDS } from './fields';
import { translatePosts, translateTerms } from '../translations';
import { recurrenceOf } from '../series/wire';
import { canRead, type Caller } from '../../users/roles';

type Event = components['schemas']['Event'];
type EmbeddedTerm = components['schemas']['EmbeddedTerm'];

export interface EventRelations {
  terms: Map<number, TermRow[]>;
  organizerIds: Map<number, number[]>;
  venues: Map<number, VenueRow>;
  organizers: Map<number, OrganizerRow>;
  images: Map<number, ImageRow>;
  /** The series of the events that are in one. */
  recurrence: Map<number, NonNullable<Event['recurrence']>>;
}

/**
 * What the events of a page link to, as `caller` may read it, in `language` (the events themselves are translated by
 * the caller). A venue or organizer the caller may not read (draft, private, trashed) is left out, as if unlinked
 * (D63): embedding must not show what `GET /venues/{id}` refuses.
 */
export async function loadRelations(
  db: Executor,
  rows: EventRow[],
  language: string,
  caller: Caller | undefined,
): Promise<EventRelations> {
  const ids = rows.map((row) => row.id);
  // everything the events' own rows name, at once (on PostgreSQL, one round trip's wait for all of them)
  const [termsByPost, linkedOrganizers, recurrence, venueRows] = await Promise.all([
    termsOfPosts(db, ids),
    organizersOfEvents(db, ids),
    recurrenceOf(db, ids),
    venuesByIds(
      db,
      rows.flatMap((row) => (row.venue_id === null ? [] : [row.venue_id])),
    ),
  ]);
  // then their translations: the terms', and the venues' and organizers' in one query
  const readableVenues = readableBy(caller, 'venues', venueRows);
  const readableOrganizers = readableBy(caller, 'organizers', linkedOrganizers.rows);
  const [termRows, linked] = await Promise.all([
    translateTerms(db, [...termsByPost.values()].flat(), language),
    translatePosts<VenueRow | OrganizerRow>(db, [...readableVenues.values(), ...readableOrganizers.values()], language),
  ]);
  const translatedLinked = new Map(linked.map((row) => [row.id, row]));
  const venues = pick(readableVenues, translatedLinked as Map<number, VenueRow>);
  const organizers = pick(readableOrganizers, translatedLinked as Map<number, OrganizerRow>);
  const translatedTerms = new Map(termRows.map((term) => [term.id, term]));
  const terms = new Map(
    [...termsByPost].map(([post, list]) => [post, list.map((term) => translatedTerms.get(term.id) ?? term)]),
  );
  const imageIds = [...rows, ...venues.values(), ...organizers.values()].flatMap((r) =>
    r.image_id === null ? [] : [r.image_id],
  );
  const organizerIds = linkedOrganizers.ids;
  return { terms, organizerIds, venues, organizers, images: await imagesByIds(db, imageIds), recurrence };
}

/** The rows of `rows`' ids, as translated. */
function pick<T>(rows: Map<number, T>, translated: Map<number, T>): Map<number, T> {
  return new Map([...rows.keys()].map((id) => [id, translated.get(id) as T]));
}

function readableBy<T extends VenueRow | OrganizerRow>(
  caller: Caller | undefined,
  type: 'venues' | 'organizers',
  rows: Map<number, T>,
): Map<number, T> {
  const readable = (row: T) =>
    row.status !== 'trash' && canRead(caller, type, { authorId: row.author_id, status: row.status });
  return new Map([...rows].filter(([, row]) => readable(row)));
}

export interface RenderOptions {
  /** Single reads carry `json_ld` (the event's and its venue's and organizers'). */
  single?: boolean;
  /** Password-protected and the request does not unlock it: protected fields blanked (§3.4). */
  blanked?: boolean;
}

export function toWireEvent(
  ctx: RenderContext,
  row: EventRow,
  rel: EventRelations,
  { single = false, blanked = false }: RenderOptions = {},
): Event {
  const url = postUrl(ctx, 'event', row.slug);
  const image = row.image_id === null ? undefined : rel.images.get(row.image_id);
  const venue = row.venue_id === null ? undefined : rel.venues.get(row.venue_id);
  const organizers = (rel.organizerIds.get(row.id) ?? []).flatMap((id) => rel.organizers.get(id) ?? []);
  const terms = rel.terms.get(row.id) ?? [];
  const { cost, cost_details } = costOf(
    row.cost ? (JSON.parse(row.cost) as string[]) : [],
    row.currency_symbol,
    row.currency_position as '' | 'prefix' | 'postfix',
  );
  const zone = row.timezone;
  const start = fromUtc(row.start_utc);
  const flag = (value: boolean) => (blanked ? null : value);
  const event: Event = {
    id: row.id,
    ...globalIds(ctx, row.id),
    author: String(row.author_id ?? 0),
    status: row.status as Event['status'],
    ...publicationTimes(ctx, row),
    url,
    rest_url: `${ctx.root}/events/${row.id}`,
    title: row.title,
    description: blanked ? '' : content(row.content),
    excerpt: blanked ? '' : content(row.excerpt),
    slug: row.slug,
    image: !blanked && image ? toWireImage(image) : false,
    all_day: flag(row.all_day),
    start_date: row.start_local,
    start_date_details: dateDetails(row.start_local),
    end_date: row.end_local,
    end_date_details: dateDetails(row.end_local),
    utc_start_date: row.start_utc,
    utc_start_date_details: dateDetails(row.start_utc),
    utc_end_date: row.end_utc,
    utc_end_date_details: dateDetails(row.end_utc),
    timezone: zone,
    timezone_abbr: timezoneAbbr(zone, start),
    cost: blanked ? '' : cost,
    cost_details: blanked
      ? { currency_symbol: '', currency_code: '', currency_position: '', values: [] }
      : cost_details,
    website: blanked ? '' : (row.website ?? url),
    show_map: flag(row.show_map),
    show_map_link: flag(row.show_map_link),
    hide_from_listings: flag(row.hide_from_listings),
    sticky: flag(row.sticky),
    featured: flag(row.featured),
    categories: blanked ? [] : terms.filter((t) => t.taxonomy === 'tribe_events_cat').map((t) => embeddedTerm(ctx, t)),
    tags: blanked ? [] : terms.filter((t) => t.taxonomy === 'post_tag').map((t) => embeddedTerm(ctx, t)),
    venue: blanked || !venue ? [] : toWireVenue(ctx, venue, rel.images, single),
    organizer: blanked ? [] : organizers.map((o) => toWireOrganizer(ctx, o, rel.images, single)),
    custom_fields: [],
  };
  if (single && !blanked) event.json_ld = eventJsonLd(ctx, row, image, venue, organizers[0], cost_details.values);
  const recurrence = rel.recurrence.get(row.id);
  if (recurrence) event.recurrence = recurrence;
  return withTableFields(event, row, blanked);
}

/** The wire fields of the table beyond the plugin's keys, found on the first event rendered. */
let appended: typeof WIRE_FIELDS | undefined;

/**
 * The field table's fields the plugin's keys do not cover (a field added to the table), after them all, so that
 * clients see the order they know; a protected one is blanked as the plugin blanks text (`""`) and flags (`null`).
 */
function withTableFields(event: Event, row: EventRow, blanked: boolean): Event {
  appended ??= WIRE_FIELDS.filter(({ wire }) => !(wire in event)); // the plugin's keys are every event's
  const values = row as unknown as Record<string, unknown>;
  const out = event as Record<string, unknown>;
  for (const { column, wire, field } of appended) {
    out[wire] = blanked && field.protected ? (field.value === 'text' ? '' : null) : values[column];
  }
  return event;
}

/** A term as events embed it (docs/compatibility.md §1.4a). */
export function embeddedTerm(ctx: RenderContext, term: TermRow): EmbeddedTerm {
  const collection = `${ctx.root}/${term.taxonomy === 'post_tag' ? 'tags' : 'categories'}`;
  return {
    name: term.name,
    slug: term.slug,
    term_group: 0,
    term_taxonomy_id: term.id,
    taxonomy: term.taxonomy,
    description: term.description,
    parent: term.parent,
    count: term.count,
    filter: 'raw',
    id: term.id,
    urls: {
      self: `${collection}/${term.id}`,
      collection,
      ...(term.parent ? { up: `${collection}/${term.parent}` } : {}),
    },
  };
}

/** schema.org Event (docs/compatibility.md §7.2). */
function eventJsonLd(
  ctx: RenderContext,
  row: EventRow,
  image: ImageRow | undefined,
  venue: VenueRow | undefined,
  organizer: OrganizerRow | undefined,
  prices: string[],
) {
  const url = postUrl(ctx, 'event', row.slug);
  const price = prices.find((value) => /^\d/.test(value));
  return dropEmpty({
    '@context': 'http://schema.org',
    '@type': 'Event',
    name: stripTags(row.title),
    description: stripTags(row.excerpt || row.content),
    image: image?.url,
    url,
    eventAttendanceMode: 'https://schema.org/OfflineEventAttendanceMode',
    eventStatus: 'https://schema.org/EventScheduled',
    startDate: isoWithOffset(fromUtc(row.start_utc), row.timezone),
    endDate: isoWithOffset(fromUtc(row.end_utc), row.timezone),
    location: venue ? venueJsonLd(ctx, venue) : undefined,
    organizer: organizer ? organizerJsonLd(ctx, organizer) : undefined,
    offers:
      price === undefined
        ? undefined
        : {
            '@type': 'Offer',
            price,
            priceCurrency: 'USD',
            url,
            category: 'primary',
            availability: 'inStock',
            validFrom: isoWithOffset(fromUtc(row.date_utc), ctx.config.siteTimezone),
          },
    performer: 'Organization',
  }) as Record<string, unknown>;
}
