/** Organizers: `posts` rows of type `organizer` with their `organizers` row. */
import type { Executor } from '../../db/types';
import { toNumber } from '../../db/dialect';
import { ORGANIZER_FIELDS, type OrganizerFields } from '../../kinds/fields/organizers';
import type { PostRow } from '../posts/repository';
import { statement } from '../../db/statements';
import { postsWithFields } from '../fields';

export type OrganizerRow = PostRow & OrganizerFields;

const ORGANIZERS = postsWithFields<OrganizerRow>('organizers', ORGANIZER_FIELDS);

export const normaliseOrganizer = ORGANIZERS.normalise;

/** Organizers by id, one query. */
export const organizersByIds = ORGANIZERS.byIds;

/** Events' organizers, rows and order, one query (their links and their records together). */
const ORGANIZERS_OF_EVENTS = statement((db, eventIds: number[]) =>
  db('event_organizers as eo')
    .join('posts as p', 'p.id', 'eo.organizer_id')
    .join('organizers as o', 'o.post_id', 'p.id')
    .whereIn('eo.event_id', eventIds)
    .orderBy('eo.event_id')
    .orderBy('eo.position')
    .select('eo.event_id as linked_event_id', 'p.*', 'o.*'),
);

/** The organizers of these events: each event's organizer ids in their order, and the organizers' rows. */
export async function organizersOfEvents(
  db: Executor,
  eventIds: number[],
): Promise<{ ids: Map<number, number[]>; rows: Map<number, OrganizerRow> }> {
  const ids = new Map<number, number[]>();
  const rows = new Map<number, OrganizerRow>();
  if (!eventIds.length) return { ids, rows };
  const found = await ORGANIZERS_OF_EVENTS.all<OrganizerRow & { linked_event_id: unknown }>(db, eventIds);
  for (const { linked_event_id, ...row } of found) {
    const organizer = normaliseOrganizer(row);
    const eventId = toNumber(linked_event_id);
    ids.set(eventId, [...(ids.get(eventId) ?? []), organizer.id]);
    rows.set(organizer.id, organizer);
  }
  return { ids, rows };
}
