/** Unique slugs for posts and terms: which of the slugs `base` may become are taken, read through the slug index. */
import type { Knex } from 'knex';
import { whereStartsWith } from '../db/dialect';
import { firstFreeSlug, slugCandidate, slugFamily } from '../domain/slugs';

const FIRST_TRIES = 20;

/**
 * The first free slug for `base` among the rows `scope()` selects. The first twenty candidates are looked up
 * exactly (an index search); only when all of them are taken are the slugs sharing the prefix read.
 */
export async function freeSlugIn(scope: () => Knex.QueryBuilder, base: string): Promise<string> {
  const candidates = Array.from({ length: FIRST_TRIES }, (_, i) => slugCandidate(base, i + 1));
  const slugs = async (query: Knex.QueryBuilder) =>
    ((await query.select('slug')) as Array<{ slug: string }>).map((r) => r.slug);
  const taken = await slugs(scope().whereIn('slug', candidates));
  if (taken.length < candidates.length) return firstFreeSlug(base, taken);
  return firstFreeSlug(base, await slugs(whereStartsWith(scope(), 'slug', slugFamily(base))));
}
