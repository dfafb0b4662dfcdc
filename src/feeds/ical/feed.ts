/**
 * Event rows (translated, with their relations) → the records `render.ts` writes, and the calendar's name from the
 * request's filters, in the request's language.
 */
import type { Language } from '../../config';
import { message, type MessageKey } from '../../i18n/messages';
import { globalIds, postUrl, type RenderContext } from '../../resources/posts/mapper';
import type { EventRelations } from '../../resources/events/mapper';
import type { EventListQuery } from '../../resources/events/list';
import type { EventRow } from '../../resources/events/repository';
import type { VenueRow } from '../../resources/venues/repository';
import { renderCalendar } from './render';
import type { CalendarEvent } from './vevent';

/** How often calendar apps should fetch the feed again. */
const REFRESH_MINUTES = 60;

const STATUS: Record<string, CalendarEvent['status']> = {
  draft: 'TENTATIVE',
  pending: 'TENTATIVE',
  trash: 'CANCELLED',
};

export function toCalendarEvent(ctx: RenderContext, row: EventRow, rel: EventRelations): CalendarEvent {
  const venue = row.venue_id === null ? undefined : rel.venues.get(row.venue_id);
  const terms = rel.terms.get(row.id) ?? [];
  const organizers = (rel.organizerIds.get(row.id) ?? []).flatMap((id) => rel.organizers.get(id) ?? []);
  return {
    uid: globalIds(ctx, row.id).global_id,
    sequence: row.revision,
    createdUtc: row.date_utc,
    modifiedUtc: row.modified_utc,
    startLocal: row.start_local,
    endLocal: row.end_local,
    startUtc: row.start_utc,
    endUtc: row.end_utc,
    timezone: row.timezone,
    allDay: row.all_day,
    title: row.title,
    descriptionHtml: row.content,
    url: postUrl(ctx, 'event', row.slug),
    location: venue ? locationOf(venue) : undefined,
    geo:
      venue && venue.geo_lat !== null && venue.geo_lng !== null
        ? { lat: venue.geo_lat, lng: venue.geo_lng }
        : undefined,
    categories: [
      ...terms.filter((t) => t.taxonomy === 'tribe_events_cat'),
      ...terms.filter((t) => t.taxonomy === 'post_tag'),
    ].map((t) => t.name),
    organizers: organizers.map((o) => ({
      name: o.title,
      email: o.email || undefined,
      url: postUrl(ctx, 'organizer', o.slug),
    })),
    status: STATUS[row.status] ?? 'CONFIRMED',
    private: row.status === 'private',
    language: row.language,
  };
}

/** Venue name and address on one line, as calendar apps show and geocode LOCATION. */
export function locationOf(venue: VenueRow): string {
  const region = venue.stateprovince || venue.province || venue.state;
  return [venue.title, venue.address, venue.city, [region, venue.zip].filter(Boolean).join(' '), venue.country]
    .filter(Boolean)
    .join(', ');
}

export function calendarText(ctx: RenderContext, name: string, events: CalendarEvent[]): string {
  return renderCalendar(
    {
      prodId: '-//calendar-events-api//iCalendar feed//EN',
      name,
      timezone: ctx.config.siteTimezone,
      refreshMinutes: REFRESH_MINUTES,
    },
    events,
  );
}

const FILTER_LABELS: Array<[keyof EventListQuery, MessageKey]> = [
  ['search', 'ical_filter_search'],
  ['categories', 'ical_filter_categories'],
  ['tags', 'ical_filter_tags'],
  ['venue', 'ical_filter_venue'],
  ['organizer', 'ical_filter_organizer'],
  ['featured', 'ical_filter_featured'],
  ['start_date', 'ical_filter_from'],
  ['end_date', 'ical_filter_to'],
];

/** "Events" or "Events (categories: music; search: jazz)", in `language`. */
export function calendarName(q: EventListQuery, language: Language): string {
  const parts = FILTER_LABELS.flatMap(([param, key]) => {
    const value = q[param];
    if (value === undefined || value === '') return [];
    const shown = Array.isArray(value) ? value.join(', ') : String(value);
    return [`${message(language, key)}: ${shown}`];
  });
  const base = message(language, 'ical_calendar_name');
  return parts.length ? `${base} (${parts.join('; ')})` : base;
}
