/** Organizers: `posts` rows of type `organizer` with their `organizers` row. */
import type { Executor } from '../../db/types';
import { toNumber } from '../../db/dialect';
import { normalisePost, type PostRow } from '../posts/repository';
import { statement } from '../../db/statements';

export interface OrganizerRow extends PostRow {
  phone: string;
  website: string;
  email: string;
  image_id: number | null;
}

export function normaliseOrganizer(row: OrganizerRow): OrganizerRow {
  return { ...normalisePost(row), image_id: row.image_id === null ? null : toNumber(row.image_id) };
}

/** Organizers by id, one query. */
const ORGANIZERS = statement((db, ids: number[]) =>
  db('posts as p').join('organizers as o', 'o.post_id', 'p.id').whereIn('p.id', ids).select('p.*', 'o.*'),
);

export async function organizersByIds(db: Executor, ids: number[]): Promise<Map<number, OrganizerRow>> {
  if (!ids.length) return new Map();
  const rows = await ORGANIZERS.all<OrganizerRow>(db, [...new Set(ids)]);
  return new Map(
    rows.map((row) => {
      const organizer = normaliseOrganizer(row);
      return [organizer.id, organizer];
    }),
  );
}
