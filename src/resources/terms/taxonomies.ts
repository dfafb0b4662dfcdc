/** What differs between categories and tags; everything else in this folder serves both. */
import type { components } from '../../../generated/schema';
import { KINDS, type KindIn } from '../../kinds/registry';
import type { Taxonomy } from './repository';

/** Each collection's wire shape (the spec's schema). */
interface TermTypes {
  categories: components['schemas']['Category'];
  tags: components['schemas']['Tag'];
}
export type TermKey = keyof TermTypes;
export type TermWire<K extends TermKey> = TermTypes[K];

/** A taxonomy; `TaxonomyInfo` alone is either. */
export interface TaxonomyInfo<K extends TermKey = TermKey> {
  /** Its record kind (src/kinds/): the audit trail's and the change feed's resource, a created record's type. */
  kind: KindIn<'terms'>;
  taxonomy: Taxonomy;
  /** The collection segment and list envelope key. */
  key: K;
  hierarchical: boolean;
  /** Its public term pages' path, `{site}/tag/{slug}/`: its kind's (src/kinds/). */
  publicPath: string;
}

export const CATEGORIES: TaxonomyInfo<'categories'> = {
  kind: 'category',
  taxonomy: 'tribe_events_cat',
  key: 'categories',
  hierarchical: true,
  publicPath: KINDS.category.publicPath,
};
export const TAGS: TaxonomyInfo<'tags'> = {
  kind: 'tag',
  taxonomy: 'post_tag',
  key: 'tags',
  hierarchical: false,
  publicPath: KINDS.tag.publicPath,
};
