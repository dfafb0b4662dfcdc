/**
 * The fields of events: their `posts` columns and their `events` row (migration 002 and later). Declaration order is
 * the order of the select list, the series copy and the `tec` importer's body (its fingerprints are stored: a new
 * field goes at the end).
 */
import type { ColumnsOf, Field, FieldTable } from './table';
import { extendTable } from './table';

/** Blanked while a password-protected event is locked (docs/compatibility.md §3.4). */
const hidden = { protected: true } as const;
const copiedFlag = { table: 'events', value: 'flag', copied: true, ...hidden, tec: 'flag' } as const;

export const EVENT_FIELDS = {
  title: {
    table: 'posts',
    value: 'text',
    wire: 'title',
    copied: true,
    translatable: true,
    search: 0,
    tec: 'text',
    ics: 'summary',
  },
  content: {
    table: 'posts',
    value: 'text',
    wire: 'description',
    copied: true,
    translatable: true,
    search: 2,
    ...hidden,
    tec: 'nonEmptyText',
    ics: 'description',
  },
  excerpt: {
    table: 'posts',
    value: 'text',
    wire: 'excerpt',
    copied: true,
    translatable: true,
    search: 1,
    ...hidden,
    tec: 'nonEmptyText',
  },
  password: { table: 'posts', value: 'text', copied: true },
  author_id: { table: 'posts', value: 'nullableId', wire: 'author', copied: true },
  language: { table: 'posts', value: 'text', copied: true },
  date_utc: { table: 'posts', value: 'text', wire: 'date_utc', copied: true },
  status: { table: 'events', value: 'text', wire: 'status', copied: true, mirrorsPost: true },
  all_day: { ...copiedFlag, wire: 'all_day' },
  start_local: { table: 'events', value: 'text', wire: 'start_date', tec: 'text', ics: 'dtstart' },
  end_local: { table: 'events', value: 'text', wire: 'end_date', tec: 'text', ics: 'dtend' },
  start_utc: { table: 'events', value: 'text', wire: 'utc_start_date' },
  end_utc: { table: 'events', value: 'text', wire: 'utc_end_date' },
  timezone: { table: 'events', value: 'text', wire: 'timezone', copied: true, tec: 'text' },
  /** JSON array of the cost entries, or null. */
  cost: { table: 'events', value: 'nullableText', wire: 'cost', copied: true, ...hidden, tec: 'textOrEmpty' },
  currency_symbol: { table: 'events', value: 'text', copied: true, ...hidden },
  currency_position: { table: 'events', value: 'text', copied: true, ...hidden },
  featured: { ...copiedFlag, wire: 'featured' },
  sticky: { ...copiedFlag, wire: 'sticky' },
  hide_from_listings: { ...copiedFlag, wire: 'hide_from_listings' },
  show_map: { ...copiedFlag, wire: 'show_map' },
  show_map_link: { ...copiedFlag, wire: 'show_map_link' },
  /** null: never set (reads show the permalink); the importer copies it only when it is not the page's URL. */
  website: { table: 'events', value: 'nullableText', wire: 'website', copied: true, ...hidden, ics: 'url' },
  venue_id: { table: 'events', value: 'nullableId', wire: 'venue', copied: true, ...hidden },
  /** The series event of an occurrence. */
  post_parent: { table: 'events', value: 'nullableId' },
  image_id: { table: 'events', value: 'nullableId', wire: 'image', copied: true, ...hidden },
} as const satisfies FieldTable<'events'>;

/** The `events` row's fields, as repositories read and write them. */
export type EventFields = ColumnsOf<typeof EVENT_FIELDS, 'events'>;

/** A field more, for a test that follows one through the service (before anything reads the table). */
export function registerEventField(column: string, field: Field<'events'>): void {
  extendTable(EVENT_FIELDS as FieldTable, column, field);
}
