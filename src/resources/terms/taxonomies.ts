/** What differs between categories and tags; everything else in this folder serves both. */
import type { Taxonomy } from './repository';

export interface TaxonomyInfo {
  taxonomy: Taxonomy;
  /** The collection segment and list envelope key. */
  key: 'categories' | 'tags';
  hierarchical: boolean;
  /** Public term page: `{site}/events/category/{slug}/`, `{site}/tag/{slug}/` (docs/compatibility.md §1.4). */
  publicPath: string;
}

export const CATEGORIES: TaxonomyInfo = {
  taxonomy: 'tribe_events_cat',
  key: 'categories',
  hierarchical: true,
  publicPath: 'events/category',
};
export const TAGS: TaxonomyInfo = { taxonomy: 'post_tag', key: 'tags', hierarchical: false, publicPath: 'tag' };
