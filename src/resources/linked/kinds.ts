/**
 * Venues and organizers are the two "linked posts" of an event (docs/compatibility.md §1.5, §1.6, §4.7, §5.2). What
 * differs between them is declared here; the service, list and handlers in this folder serve both.
 */
import type { components } from '../../../generated/schema';
import type { Executor } from '../../db/types';
import { columnsWhere, type FieldTable } from '../../kinds/fields/table';
import { ORGANIZER_FIELDS } from '../../kinds/fields/organizers';
import { VENUE_FIELDS } from '../../kinds/fields/venues';
import type { ImageRow } from '../images/images';
import type { RenderContext } from '../posts/mapper';
import type { PostRow } from '../posts/repository';
import { organizersByIds } from '../organizers/repository';
import { toWireOrganizer } from '../organizers/mapper';
import { venuesByIds } from '../venues/repository';
import { toWireVenue } from '../venues/mapper';

export type LinkedRow = PostRow & { image_id: number | null };

/** Each kind's wire shape (the spec's schema) and collection. */
interface LinkedTypes {
  venue: { wire: components['schemas']['Venue']; plural: 'venues' };
  organizer: { wire: components['schemas']['Organizer']; plural: 'organizers' };
}
export type LinkedType = keyof LinkedTypes;
export type LinkedWire<T extends LinkedType> = LinkedTypes[T]['wire'];

/** A kind of linked post; `LinkedKind` alone is either. */
export interface LinkedKind<T extends LinkedType = LinkedType> {
  type: T;
  /** The capability suffix, collection segment and list key. */
  plural: LinkedTypes[T]['plural'];
  /** Table of the kind's own fields, keyed by `post_id`. */
  table: LinkedTypes[T]['plural'];
  /** Text fields of the table (`""` clears them). */
  textFields: readonly string[];
  /**
   * Fields besides the name that decide whether a create reuses an existing record, when they are sent (the plugin's
   * duplicate finder, docs/compatibility.md §4.7): `description` and these columns of the table.
   */
  duplicateFields: readonly string[];
  /** Organizer text fields lose tags and line breaks (docs/compatibility.md §4.7). */
  plainText: boolean;
  load(db: Executor, ids: number[]): Promise<Map<number, LinkedRow>>;
  toWire(ctx: RenderContext, row: LinkedRow, images: Map<number, ImageRow>, withJsonLd: boolean): LinkedWire<T>;
  /** How events link to it: the event column, or the join table. */
  eventLink: { column: 'venue_id' } | { table: 'event_organizers'; column: 'organizer_id' };
}

/** The text columns of the kind's own table, in declaration order. */
const textFieldsOf = (fields: FieldTable) =>
  columnsWhere(fields, (field) => field.table !== 'posts' && field.value === 'text');

export const VENUES: LinkedKind<'venue'> = {
  type: 'venue',
  plural: 'venues',
  table: 'venues',
  textFields: textFieldsOf(VENUE_FIELDS),
  duplicateFields: columnsWhere(VENUE_FIELDS, (field) => field.duplicate),
  plainText: false,
  load: venuesByIds,
  toWire: (ctx, row, images, withJsonLd) => toWireVenue(ctx, row as never, images, withJsonLd),
  eventLink: { column: 'venue_id' },
};

export const ORGANIZERS: LinkedKind<'organizer'> = {
  type: 'organizer',
  plural: 'organizers',
  table: 'organizers',
  textFields: textFieldsOf(ORGANIZER_FIELDS),
  duplicateFields: columnsWhere(ORGANIZER_FIELDS, (field) => field.duplicate),
  plainText: true,
  load: organizersByIds,
  toWire: (ctx, row, images, withJsonLd) => toWireOrganizer(ctx, row as never, images, withJsonLd),
  eventLink: { table: 'event_organizers', column: 'organizer_id' },
};
