/** Term rows to the wire: the shape of the category and tag routes (docs/compatibility.md §1.4b). */
import type { components } from '../../../generated/schema';
import type { RenderContext } from '../../core/reader';
import type { TermRow } from './repository';
import type { TaxonomyInfo, TermKey, TermWire } from './taxonomies';

type Category = components['schemas']['Category'];
type Tag = components['schemas']['Tag'];
type TermUrls = components['schemas']['TermUrls'];

export function termUrls(ctx: RenderContext, info: TaxonomyInfo, row: Pick<TermRow, 'id' | 'parent'>): TermUrls {
  const collection = `${ctx.root}/${info.key}`;
  return { self: `${collection}/${row.id}`, collection, ...(row.parent ? { up: `${collection}/${row.parent}` } : {}) };
}

/**
 * A category (`hierarchical`) or a tag, as the taxonomy's own routes answer it. `path` is its slugs from the root
 * (`music/jazz`): a child category's link names its ancestors, as WordPress's hierarchical term links do.
 */
export function toWireTerm<K extends TermKey>(
  ctx: RenderContext,
  info: TaxonomyInfo<K>,
  row: TermRow,
  path = row.slug,
): TermWire<K> {
  const base = {
    id: row.id,
    count: row.count,
    description: row.description,
    name: row.name,
    slug: row.slug,
  };
  const url = `${ctx.site}/${info.publicPath}/${path}/`;
  const urls = termUrls(ctx, info, row);
  const term: Category | Tag = info.hierarchical
    ? { ...base, taxonomy: 'tribe_events_cat', parent: row.parent, meta: [], url, urls }
    : { ...base, taxonomy: 'post_tag', meta: [], url, urls };
  // the runtime flag picks the shape; TypeScript cannot narrow `K` from it (CATEGORIES is the hierarchical one)
  return term as TermWire<K>;
}
