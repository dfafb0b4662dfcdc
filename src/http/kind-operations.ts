/**
 * A kind's part of the operation table (routes.ts), derived from its registry entry (src/kinds/) by how the spec
 * names its operations: `list<Collection>`, `create<WireType>`, and `get`, `update`, `replace`, `patch`, `delete`
 * `<WireType>` for each way a record is addressed (`getVenue` by id, `getVenueBySlug` by slug). Types follow the same
 * names, so where the part enters a table `satisfies Partial<HandlerTable>` still checks each handler against its
 * operation, and routes.ts's `HandlerTable` fails on an operation a misnamed key would leave without a handler.
 */
import { KINDS, type Kind } from '../kinds/registry';

/** One handler per verb: `update` serves PUT, POST and PATCH alike. */
type Verbs = Record<'list' | 'create' | 'get' | 'update' | 'remove', unknown>;
type Addressed = 'id' | 'slug';
/** The suffix of the operations addressing a record so: none by id, `BySlug` by slug. */
type Suffix<A extends Addressed> = A extends 'slug' ? 'BySlug' : '';

type One<K extends Kind> = (typeof KINDS)[K]['wireType'];
type Many<K extends Kind> = Capitalize<(typeof KINDS)[K]['collection']>;
/** What names one record in an operationId: `Venue`, `VenueBySlug`. */
type Target<K extends Kind, A extends Addressed> = `${One<K>}${Suffix<A>}`;

/** Each operation of kind K to the handler in H of the verb it starts with. */
export type KindOperations<K extends Kind, H extends Verbs, A extends Addressed> = Record<`list${Many<K>}`, H['list']> &
  Record<`create${One<K>}`, H['create']> &
  Record<`get${Target<K, A>}`, H['get']> &
  Record<`${'update' | 'replace' | 'patch'}${Target<K, A>}`, H['update']> &
  Record<`delete${Target<K, A>}`, H['remove']>;

const SUFFIXES: Record<Addressed, string> = { id: '', slug: 'BySlug' };

/** One kind's operations, each to its verb's handler: `kindOperations('venue', venues, ['id', 'slug'])`. */
export function kindOperations<K extends Kind, H extends Verbs, A extends Addressed>(
  kind: K,
  handlers: H,
  addressed: readonly A[],
): KindOperations<K, H, A> {
  const { wireType: one, collection } = KINDS[kind];
  const many = collection[0].toUpperCase() + collection.slice(1);
  const table: Record<string, unknown> = { [`list${many}`]: handlers.list, [`create${one}`]: handlers.create };
  for (const suffix of addressed.map((way) => SUFFIXES[way])) {
    table[`get${one}${suffix}`] = handlers.get;
    for (const verb of ['update', 'replace', 'patch']) table[`${verb}${one}${suffix}`] = handlers.update;
    table[`delete${one}${suffix}`] = handlers.remove;
  }
  return table as KindOperations<K, H, A>;
}
