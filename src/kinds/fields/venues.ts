/**
 * The fields of venues: their `posts` columns and their `venues` row (migration 002). Declaration order is the
 * order of the text fields a write stores and of the `tec` importer's body (its fingerprints are stored).
 */
import type { ColumnsOf, FieldTable } from './table';

/** A text column of `venues`: searched at `search`, and a duplicate's field when searched. */
const text = (search?: number) =>
  ({ table: 'venues', value: 'text', search, duplicate: search !== undefined, tec: 'asSent' }) as const;

export const VENUE_FIELDS = {
  title: { table: 'posts', value: 'text', wire: 'venue', translatable: true, search: 0, tec: 'asSent' },
  content: { table: 'posts', value: 'text', wire: 'description', translatable: true, search: 1, tec: 'nonEmptyText' },
  excerpt: { table: 'posts', value: 'text', wire: 'excerpt', translatable: true, search: 2 },
  address: { ...text(3), wire: 'address' },
  city: { ...text(4), wire: 'city' },
  country: { ...text(), wire: 'country' },
  province: { ...text(5), wire: 'province' },
  state: { ...text(6), wire: 'state' },
  zip: { ...text(8), wire: 'zip' },
  phone: { ...text(9), wire: 'phone' },
  stateprovince: { ...text(7), wire: 'stateprovince' },
  website: { ...text(), wire: 'website' },
  show_map: { table: 'venues', value: 'flag', wire: 'show_map', tec: 'asSent' },
  show_map_link: { table: 'venues', value: 'flag', wire: 'show_map_link', tec: 'asSent' },
  geo_lat: { table: 'venues', value: 'nullableNumber', wire: 'geo_lat', tec: 'asSent' },
  geo_lng: { table: 'venues', value: 'nullableNumber', wire: 'geo_lng', tec: 'asSent' },
  image_id: { table: 'venues', value: 'nullableId', wire: 'image' },
} as const satisfies FieldTable<'venues'>;

export type VenueFields = ColumnsOf<typeof VENUE_FIELDS, 'venues'>;
