/**
 * The calendar's client of the service's JSON API, typed from the spec (generated/schema.d.ts): the events of a
 * range, every page of them, and the URLs of the iCalendar routes. Every request omits credentials (no cookie or
 * `Authorization` leaves the embedding page) and revalidates with the browser's cache (`cache: 'no-cache'`: the
 * browser sends `If-None-Match` and the service answers 304 when nothing changed), so a list the service allowed to
 * be cached for 30 seconds never keeps a saved change off the page (docs/decisions.md D140).
 */
import type { components, operations } from '../../../generated/schema';

export type ApiEvent = components['schemas']['Event'];
export type ApiVenue = components['schemas']['Venue'];
export type ApiOrganizer = components['schemas']['Organizer'];
type EventList = components['schemas']['EventList'];
type ListQuery = NonNullable<operations['listEvents']['parameters']['query']>;
type FeedQuery = NonNullable<operations['listEventsIcal']['parameters']['query']>;

/** The list filters the element passes through, as its attributes hold them (comma lists as the API reads them). */
export interface Filters {
  categories?: string;
  tags?: string;
  venue?: string;
  organizer?: string;
  search?: string;
  featured?: string;
}

export const FILTERS = ['categories', 'tags', 'venue', 'organizer', 'search', 'featured'] as const;

const REQUEST: RequestInit = {
  credentials: 'omit',
  cache: 'no-cache',
  mode: 'cors',
  headers: { Accept: 'application/json' },
};
/** Events per page (the API's most) and the most pages one range reads. */
const PER_PAGE = 50;
const MAX_PAGES = 40;

export interface RangeAnswer {
  events: ApiEvent[];
  /** `Content-Language` of the first page: the language the service answered in. */
  language: string | null;
}

export class CalendarApi {
  /** The ETag last seen for each first-page URL (the live poll compares with it). */
  readonly tags = new Map<string, string | null>();

  /** `root` is the API root (`src`), without a trailing slash; `language` is sent as `i18n_language` when set. */
  constructor(
    readonly root: string,
    readonly language: string | undefined,
    readonly filters: Filters,
  ) {}

  /** The first-page URL of the events overlapping [start, end) (instants in ms). */
  rangeUrl(start: number, end: number, format: (ms: number) => string): string {
    const query: ListQuery = {
      ends_after: format(start),
      starts_before: format(end),
      strict_dates: '1',
      per_page: PER_PAGE,
      ...this.filterQuery(),
    };
    return this.url('/events', query);
  }

  /** Every event of a first-page URL, following `next_rest_url` while it stays under the API root. */
  async range(first: string, signal?: AbortSignal): Promise<RangeAnswer> {
    const events: ApiEvent[] = [];
    let language: string | null = null;
    let next: string | undefined = first;
    for (let page = 0; next && page < MAX_PAGES; page++) {
      const response = await fetch(next, { ...REQUEST, signal });
      if (!response.ok) throw new Error(`${response.status} from ${next}`);
      if (page === 0) {
        language = response.headers.get('Content-Language');
        this.tags.set(first, response.headers.get('ETag'));
      }
      const body = (await response.json()) as EventList;
      events.push(...body.events);
      next = this.underRoot(body.next_rest_url);
    }
    return { events, language };
  }

  /** The ETag of a first-page URL now (a conditional request: mostly a 304 with no body). */
  async tagOf(first: string): Promise<string | null> {
    const response = await fetch(first, REQUEST);
    if (!response.ok) return this.tags.get(first) ?? null;
    await response.arrayBuffer();
    return response.headers.get('ETag');
  }

  /** One event's iCalendar file (`/events/ical/{id}`): what "add to calendar" opens. */
  eventIcalUrl(id: number): string {
    return this.url(`/events/ical/${id}`, this.languageQuery());
  }

  /** The iCalendar feed of the current filters (`/events/ical`): what "subscribe" opens. */
  feedUrl(): string {
    const query: FeedQuery = { ...this.filterQuery() };
    return this.url('/events/ical', query);
  }

  /** The change stream (`/changes/stream`, Server-Sent Events). */
  streamUrl(): string {
    return `${this.root}/changes/stream`;
  }

  private languageQuery(): { i18n_language?: ListQuery['i18n_language'] } {
    return this.language ? { i18n_language: this.language as ListQuery['i18n_language'] } : {};
  }

  private filterQuery(): Partial<ListQuery> {
    const f = this.filters;
    const list = (value: string | undefined) =>
      value
        ?.split(',')
        .map((item) => item.trim())
        .filter(Boolean);
    const ids = (value: string | undefined) => list(value)?.map(Number);
    const query: Partial<ListQuery> = { ...this.languageQuery() };
    if (list(f.categories)?.length) query.categories = list(f.categories);
    if (list(f.tags)?.length) query.tags = list(f.tags);
    if (ids(f.venue)?.length) query.venue = ids(f.venue);
    if (ids(f.organizer)?.length) query.organizer = ids(f.organizer);
    if (f.search?.trim()) query.search = f.search.trim();
    if (f.featured?.trim()) query.featured = f.featured.trim() as ListQuery['featured'];
    return query;
  }

  private url(path: string, query: object): string {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value === undefined || value === null) continue;
      params.set(key, Array.isArray(value) ? value.join(',') : String(value));
    }
    const search = params.toString();
    return `${this.root}${path}${search ? `?${search}` : ''}`;
  }

  /** A next-page URL only when it stays under the API root (the element never follows a link elsewhere). */
  private underRoot(url: string | null | undefined): string | undefined {
    if (!url) return undefined;
    try {
      const next = new URL(url, this.root);
      const root = new URL(this.root);
      return next.origin === root.origin && next.pathname.startsWith(root.pathname) ? next.href : undefined;
    } catch {
      return undefined;
    }
  }
}
