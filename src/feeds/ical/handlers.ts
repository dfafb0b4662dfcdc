/**
 * The iCalendar routes (`/events/ical`, `/events/ical/{id}`, `/events/ical/by-slug/{slug}`) and the
 * `Accept: text/calendar` form of `GET /events` and `GET /events/{id}` (chosen in src/routes.ts): the same filters and
 * read rules as the JSON answers, no paging, at most ICAL_MAX_EVENTS events, password-protected events left out.
 * ETag/304 and Cache-Control come from `conditionalReads`, as for JSON.
 */
import type { HandlerTable, TypedRequest, TypedResponse } from '../../http/handler';
import { caller } from '../../http/auth';
import { context } from '../../http/context';
import { lastModified } from '../../http/caching';
import { readerOf } from '../../http/reader';
import { readList, type ListSource, type Representation } from '../../core/lists';
import { translatePosts } from '../../resources/translations';
import { loadRelations } from '../../resources/events/mapper';
import { eventFilters, type EventListQuery } from '../../resources/events/list';
import * as repo from '../../resources/events/repository';
import * as access from '../../resources/events/access';
import type { EventFilters, EventRow } from '../../resources/events/repository';
import { calendarName, calendarText, toCalendarEvent } from './feed';
import { feedItems, type FeedItem } from './series';
import { globalIds } from '../../resources/posts/mapper';

/** Feeds cover 30 days back to 12 months ahead unless the request names dates. */
const FEED_WINDOW = { daysBack: 30, monthsAhead: 12 };

/** The events list's filters over the feed's window, password-protected events left out (a feed carries no password). */
const FEED: ListSource<EventListQuery, EventFilters, EventRow> = {
  async filters({ db, config, caller: who, language }, q) {
    return { ...(await eventFilters(db, config, who, q, language, undefined, FEED_WINDOW)), unprotected: true };
  },
  page: ({ db }, filters, { limit, offset }) => repo.listEvents(db, filters, limit, offset),
};

/** The calendar answer: text (`ICalendar`), also for the JSON reads that answer it when asked (src/routes.ts). */
type CalendarResponse = TypedResponse<'listEventsIcal' | 'getEventIcal' | 'getEventBySlugIcal'>;

/** The calendar of some events (series as rules), named `name` or after the (translated) title of the first. */
function calendarOf(name?: string): Representation<unknown, EventRow, string> {
  return async ({ db, language, caller: who, render }, rows) => {
    const items = await feedItems(db, rows, who);
    const originals = items.map((item) => item.row);
    const translated = await translatePosts(db, originals, language);
    const relations = await loadRelations(db, translated, language, who);
    // LANGUAGE names the language the texts are in: the request's when the event has a translation, else its own
    const textLanguage = (row: EventRow, i: number) =>
      row.title !== originals[i].title || row.content !== originals[i].content ? language : row.language;
    const events = translated.map((row, i) => {
      const { recurrence, recurrenceId, coverUntilUtc } = items[i];
      // overrides share the series' UID
      const uid = recurrenceId === undefined ? undefined : globalIds(render, seriesOf(items, i)).global_id;
      return {
        ...toCalendarEvent(render, row, relations),
        language: textLanguage(row, i),
        recurrence,
        recurrenceId,
        coverUntilUtc,
        ...(uid ? { uid } : {}),
      };
    });
    return calendarText(render, name ?? translated[0].title, events);
  };
}

function sendCalendar(res: CalendarResponse, body: string): void {
  res.status(200).type('text/calendar; charset=utf-8').send(body);
}

/** The series event of the detached occurrence at `index` (the last item with a rule before it). */
function seriesOf(items: FeedItem[], index: number): number {
  for (let i = index; i >= 0; i--) if (items[i].recurrence) return items[i].row.id;
  return items[index].row.id;
}

export async function sendEventListCalendar(
  req: TypedRequest<'listEvents' | 'listEventsIcal'>,
  res: CalendarResponse,
): Promise<void> {
  const reader = readerOf(req);
  const query = req.query as EventListQuery;
  const window = { limit: reader.config.icalMaxEvents, offset: 0 };
  const calendar = calendarOf(calendarName(query, reader.language));
  sendCalendar(res, (await readList(reader, FEED, query, window, calendar)).body);
}

export async function sendEventCalendar(
  req: TypedRequest<'getEvent' | 'getEventBySlug' | 'getEventIcal' | 'getEventBySlugIcal'>,
  res: CalendarResponse,
): Promise<void> {
  const { db } = context(req);
  const row =
    'id' in req.params ? await access.eventById(db, req.params.id) : await access.eventBySlug(db, req.params.slug);
  access.assertReadable(row, caller(req), undefined); // a password-protected event is 403 here: feeds carry no password
  lastModified(res, row.modified_utc);
  sendCalendar(res, await calendarOf()(readerOf(req), [row], undefined));
}

export const icalHandlers = {
  listEventsIcal: sendEventListCalendar,
  getEventIcal: sendEventCalendar,
  getEventBySlugIcal: sendEventCalendar,
} satisfies Partial<HandlerTable>;
