/**
 * Venue coordinates in a bounding box, by each engine's index (migration 005): R*Tree on SQLite, btree on PostgreSQL.
 */
import type { Knex } from 'knex';
import type { Executor } from './types';
import { isPostgres } from './dialect';

/** Without `west`/`east`, no longitude bound (a box that would wrap around the antimeridian or span the globe). */
export interface Box {
  south: number;
  north: number;
  west?: number;
  east?: number;
}

/** `venues as v` restricted to the box. */
export function venuesInBox(db: Executor, box: Box): Knex.QueryBuilder {
  if (isPostgres(db)) {
    const query = db('venues as v').whereBetween('v.geo_lat', [box.south, box.north]);
    return box.west === undefined || box.east === undefined
      ? query
      : query.whereBetween('v.geo_lng', [box.west, box.east]);
  }
  // R*Tree stores 32-bit floats rounded outwards: an overlap test keeps points on the edges
  const query = db('venues_geo as g')
    .join('venues as v', 'v.post_id', 'g.id')
    .where('g.max_lat', '>=', box.south)
    .where('g.min_lat', '<=', box.north);
  return box.west === undefined || box.east === undefined
    ? query
    : query.where('g.max_lng', '>=', box.west).where('g.min_lng', '<=', box.east);
}
