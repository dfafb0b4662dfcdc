/** Term rows to the wire: the shape of the category and tag routes (docs/compatibility.md §1.4b). */
import type { components } from '../../../generated/schema';
import { publicUrl, restRoot, type RequestLike } from '../../http/urls';
import type { TermRow } from './repository';
import type { TaxonomyInfo } from './taxonomies';

type Category = components['schemas']['Category'];
type Tag = components['schemas']['Tag'];
type TermUrls = components['schemas']['TermUrls'];

export function termUrls(req: RequestLike, info: TaxonomyInfo, row: Pick<TermRow, 'id' | 'parent'>): TermUrls {
  const collection = `${restRoot(req)}/${info.key}`;
  return { self: `${collection}/${row.id}`, collection, ...(row.parent ? { up: `${collection}/${row.parent}` } : {}) };
}

export function toWireTerm(req: RequestLike, info: TaxonomyInfo, row: TermRow): Category | Tag {
  const base = {
    id: row.id,
    count: row.count,
    description: row.description,
    name: row.name,
    slug: row.slug,
  };
  const url = `${publicUrl(req)}/${info.publicPath}/${row.slug}/`;
  const urls = termUrls(req, info, row);
  return info.hierarchical
    ? { ...base, taxonomy: 'tribe_events_cat', parent: row.parent, meta: [], url, urls }
    : { ...base, taxonomy: 'post_tag', meta: [], url, urls };
}
