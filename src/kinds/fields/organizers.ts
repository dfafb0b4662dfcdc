/**
 * The fields of organizers: their `posts` columns and their `organizers` row (migration 002). Declaration order is
 * the order of the text fields a write stores and of the `tec` importer's body (its fingerprints are stored).
 */
import type { ColumnsOf, FieldTable } from './table';

/** A text column of `organizers`, searched at `search`; every one decides duplicates. */
const text = (search: number) =>
  ({ table: 'organizers', value: 'text', search, duplicate: true, tec: 'asSent' }) as const;

export const ORGANIZER_FIELDS = {
  title: { table: 'posts', value: 'text', wire: 'organizer', translatable: true, search: 0, tec: 'asSent' },
  content: { table: 'posts', value: 'text', wire: 'description', translatable: true, search: 1, tec: 'nonEmptyText' },
  excerpt: { table: 'posts', value: 'text', wire: 'excerpt', translatable: true, search: 2 },
  phone: { ...text(3), wire: 'phone' },
  website: { ...text(5), wire: 'website' },
  email: { ...text(4), wire: 'email' },
  image_id: { table: 'organizers', value: 'nullableId', wire: 'image' },
} as const satisfies FieldTable<'organizers'>;

export type OrganizerFields = ColumnsOf<typeof ORGANIZER_FIELDS, 'organizers'>;
