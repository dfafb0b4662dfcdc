/**
 * A typed client built from the spec's generated types with openapi-fetch. It compiles without casts: every path,
 * parameter, body and answer below is checked against generated/schema.d.ts, so it proves the spec describes what
 * the server answers (the round trip in test/http/client.test.ts runs it against a live server).
 */
import createClient from 'openapi-fetch';
import type { paths } from '../generated/schema';

export function calendarClient(namespaceRoot: string, login: string, password: string) {
  return createClient<paths, 'application/json'>({
    // JSON answers (some routes also speak text/calendar)
    baseUrl: namespaceRoot,
    headers: { Authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}` },
  });
}

export type CalendarClient = ReturnType<typeof calendarClient>;

/** A full round trip: create linked records, list with filters, update, read in another language, delete. */
export async function roundTrip(client: CalendarClient) {
  const category = await client.POST('/categories', { body: { name: 'Outdoors', description: 'Fresh air' } });
  if (!category.data) throw new Error(`category: ${category.error?.code}`);

  const venue = await client.POST('/venues', {
    body: { venue: 'Boathouse', city: 'Utrecht', geo_lat: 52.09, geo_lng: 5.12 },
  });
  if (!venue.data) throw new Error(`venue: ${venue.error?.code}`);

  const organizer = await client.POST('/organizers', {
    body: { organizer: 'Green River Club', email: 'hello@grc.example' },
  });
  if (!organizer.data) throw new Error(`organizer: ${organizer.error?.code}`);

  const created = await client.POST('/events', {
    body: {
      title: 'River cleanup',
      start_date: '2031-04-12 09:00:00',
      end_date: '2031-04-12 12:30:00',
      timezone: 'Europe/Amsterdam',
      categories: [category.data.id],
      venue: venue.data.id,
      organizer: [organizer.data.id, { organizer: 'Inline helpers' }],
      cost: '15$',
    },
  });
  if (!created.data) throw new Error(`event: ${created.error?.code}`);
  const eventId = created.data.id;

  const listed = await client.GET('/events', {
    params: {
      query: {
        categories: [category.data.id],
        venue: [venue.data.id],
        start_date: '2031-01-01',
        end_date: '2031-12-31',
        per_page: 5,
      },
    },
  });
  if (!listed.data) throw new Error(`list: ${listed.error?.code}`);

  const updated = await client.PATCH('/events/{id}', {
    params: { path: { id: eventId } },
    body: { featured: true, cost: '20$' },
  });
  if (!updated.data) throw new Error(`update: ${updated.error?.code}`);

  const translated = await client.PATCH('/events/{id}', {
    params: { path: { id: eventId }, query: { i18n_language: 'nl' } },
    body: { title: 'Rivier opruimen' },
  });
  if (!translated.data) throw new Error(`translate: ${translated.error?.code}`);

  const dutch = await client.GET('/events/{id}', { params: { path: { id: eventId }, query: { i18n_language: 'nl' } } });
  if (!dutch.data) throw new Error(`read: ${dutch.error?.code}`);

  const trashed = await client.DELETE('/events/{id}', { params: { path: { id: eventId } } });
  const again = await client.DELETE('/events/{id}', { params: { path: { id: eventId } } });
  const removed = await client.DELETE('/events/{id}', { params: { path: { id: eventId }, query: { force: true } } });

  return {
    eventId,
    listedIds: listed.data.events.map((event) => event.id),
    total: listed.data.total,
    featured: updated.data.featured,
    cost: updated.data.cost,
    dutchTitle: dutch.data.title,
    dutchLanguage: dutch.response.headers.get('content-language'),
    venueName: Array.isArray(dutch.data.venue) ? undefined : dutch.data.venue.venue,
    organizers: dutch.data.organizer.map((o) => o.organizer),
    trashedStatus: trashed.data?.status,
    secondDelete: again.error?.code,
    removedStatus: removed.response.status,
  };
}

/** A recurring series: create it from an RFC 5545 rule, read its occurrences, move one of them alone. */
export async function seriesRoundTrip(client: CalendarClient) {
  const created = await client.POST('/events', {
    body: {
      title: 'Tuesday and Thursday rowing',
      start_date: '2031-03-04 18:00:00',
      end_date: '2031-03-04 19:30:00',
      timezone: 'Europe/Amsterdam',
      recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=TU,TH;COUNT=6', exdates: ['2031-03-06 18:00:00'] },
    },
  });
  if (!created.data) throw new Error(`series: ${created.error?.code}`);
  const seriesId = created.data.id;

  const occurrences = await client.GET('/events/occurrences/{id}', {
    params: { path: { id: seriesId }, query: { start_date: '2031-03-01', end_date: '2031-03-31' } },
  });
  if (!occurrences.data) throw new Error(`occurrences: ${occurrences.error?.code}`);
  const second = occurrences.data.events[1];

  const moved = await client.PATCH('/events/{id}', {
    params: { path: { id: second.id }, query: { recurrence_scope: 'this' } },
    body: { start_date: '2031-03-11 19:00:00', end_date: '2031-03-11 20:30:00' },
  });
  if (!moved.data) throw new Error(`move: ${moved.error?.code}`);

  return {
    rrule: created.data.recurrence?.rrule,
    starts: occurrences.data.events.map((event) => event.start_date),
    seriesIds: occurrences.data.events.map((event) => event.recurrence?.series_id === seriesId),
    secondSlug: second.slug === `${created.data.slug}-2031-03-11`,
    movedStart: moved.data.start_date,
    movedDetached: moved.data.recurrence?.detached,
  };
}
