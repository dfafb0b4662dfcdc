/** operationId → handler, for every operation of the spec (a missing one fails type-checking). */
import type { HandlerTable } from './handler';
import { notImplemented } from './errors';
import { discoveryHandlers } from './discovery';
import { termHandlers } from '../resources/terms/handlers';
import { eventHandlers } from '../resources/events/handlers';

/** Venues and organizers land with their own issue; until then they answer 501 `not_implemented`. */
const pending = {
  listVenues: notImplemented, createVenue: notImplemented, getVenue: notImplemented, updateVenue: notImplemented,
  replaceVenue: notImplemented, patchVenue: notImplemented, deleteVenue: notImplemented,
  getVenueBySlug: notImplemented, updateVenueBySlug: notImplemented, replaceVenueBySlug: notImplemented,
  patchVenueBySlug: notImplemented, deleteVenueBySlug: notImplemented,
  listOrganizers: notImplemented, createOrganizer: notImplemented, getOrganizer: notImplemented,
  updateOrganizer: notImplemented, replaceOrganizer: notImplemented, patchOrganizer: notImplemented,
  deleteOrganizer: notImplemented, getOrganizerBySlug: notImplemented, updateOrganizerBySlug: notImplemented,
  replaceOrganizerBySlug: notImplemented, patchOrganizerBySlug: notImplemented, deleteOrganizerBySlug: notImplemented,
} satisfies Partial<HandlerTable>;

export const handlers: HandlerTable = { ...discoveryHandlers, ...termHandlers, ...eventHandlers, ...pending };
