/**
 * The list pipeline of the read kernel. Every list the service answers (events and a series' occurrences, venues,
 * organizers, categories, tags) and the iCalendar feed is read in the same three steps:
 *
 *   1. filters: the validated parameters resolved against the data and the reader (400 for a reference that does not
 *      exist, statuses the caller may ask for, the default window);
 *   2. the page: its rows in list order and the exact total (db/counts.ts);
 *   3. the representation: for JSON lists each row's cached bytes (resources/records.ts), for the feed one calendar.
 *
 * The envelope and headers come last, from the caller (http/lists.ts for JSON pages, the feed's handler for
 * calendars). A list is declared once, as a `ListSource`, and read only through `readList`, so whatever applies to
 * every list (a whole-answer cache) has one place to go.
 */
import type { Reader } from './reader';

/** Which rows of the list a page holds. */
export interface Window {
  limit: number;
  offset: number;
}

/** A page of a list: its rows, and how many the whole list has. */
export interface ListPage<R> {
  rows: R[];
  total: number;
}

/** A kind of list: parameters `Q` resolved into filters `F`, and filters into a page of rows `R`. */
export interface ListSource<Q, F, R> {
  filters(reader: Reader, query: Q): Promise<F>;
  page(reader: Reader, filters: F, window: Window): Promise<ListPage<R>>;
}

/** How a page's rows are shown to the reader (`B`: the cached bytes of each row, or one calendar). */
export type Representation<F, R, B> = (reader: Reader, rows: R[], filters: F) => Promise<B>;

/** A list read: the representation of its page, and the list's total. */
export interface ListRead<B> {
  body: B;
  total: number;
}

export async function readList<Q, F, R, B>(
  reader: Reader,
  source: ListSource<Q, F, R>,
  query: Q,
  window: Window,
  represent: Representation<F, R, B>,
): Promise<ListRead<B>> {
  const filters = await source.filters(reader, query);
  const { rows, total } = await source.page(reader, filters, window);
  return { body: await represent(reader, rows, filters), total };
}
