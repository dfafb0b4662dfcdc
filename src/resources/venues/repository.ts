/** Venues: `posts` rows of type `venue` with their `venues` row. */
import type { Executor } from '../../db/types';
import { toBoolean, toNumber } from '../../db/dialect';
import { statement } from '../../db/statements';
import { normalisePost, type PostRow } from '../posts/repository';

export interface VenueRow extends PostRow {
  address: string;
  city: string;
  country: string;
  province: string;
  state: string;
  zip: string;
  phone: string;
  stateprovince: string;
  website: string;
  show_map: boolean;
  show_map_link: boolean;
  geo_lat: number | null;
  geo_lng: number | null;
  image_id: number | null;
}

const nullableNumber = (value: unknown) => (value === null || value === undefined ? null : Number(value));

export function normaliseVenue(row: VenueRow): VenueRow {
  return {
    ...normalisePost(row),
    show_map: toBoolean(row.show_map),
    show_map_link: toBoolean(row.show_map_link),
    geo_lat: nullableNumber(row.geo_lat),
    geo_lng: nullableNumber(row.geo_lng),
    image_id: row.image_id === null ? null : toNumber(row.image_id),
  };
}

const VENUES = statement((db, ids: number[]) =>
  db('posts as p').join('venues as v', 'v.post_id', 'p.id').whereIn('p.id', ids).select('p.*', 'v.*'),
);

/** Venues by id, one query. */
export async function venuesByIds(db: Executor, ids: number[]): Promise<Map<number, VenueRow>> {
  if (!ids.length) return new Map();
  const rows = await VENUES.all<VenueRow>(db, [...new Set(ids)]);
  return new Map(
    rows.map((row) => {
      const venue = normaliseVenue(row);
      return [venue.id, venue];
    }),
  );
}
