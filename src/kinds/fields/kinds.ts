/** The field tables of the post kinds, by `posts.type` (what translations and search documents read). */
import { EVENT_FIELDS } from './events';
import { ORGANIZER_FIELDS } from './organizers';
import type { FieldTable } from './table';
import { VENUE_FIELDS } from './venues';

/** Each post kind's table and own table (keyed by `post_id`). */
export const POST_KINDS = {
  event: { table: 'events', fields: EVENT_FIELDS as FieldTable },
  venue: { table: 'venues', fields: VENUE_FIELDS as FieldTable },
  organizer: { table: 'organizers', fields: ORGANIZER_FIELDS as FieldTable },
} as const;
export type PostKind = keyof typeof POST_KINDS;
