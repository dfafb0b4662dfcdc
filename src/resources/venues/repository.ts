/** Venues: `posts` rows of type `venue` with their `venues` row. */
import { VENUE_FIELDS, type VenueFields } from '../../kinds/fields/venues';
import type { PostRow } from '../posts/repository';
import { postsWithFields } from '../fields';

export type VenueRow = PostRow & VenueFields;

/** Venues by id, one query. */
export const { byIds: venuesByIds } = postsWithFields<VenueRow>('venues', VENUE_FIELDS);
