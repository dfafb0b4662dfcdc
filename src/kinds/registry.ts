/**
 * The record kinds the API serves, declared once. Each is keyed by its name on the wire: a created record's type,
 * the change feed's and the audit trail's `resource`, the first half of a webhook event type (`event.created`). The
 * lists the kernel, search, posts, roles (the post types), operation tables (http/kind-operations.ts) and the
 * composition used to keep by hand derive from here, and test/unit/kinds.test.ts holds the spec's enums to it. Pure
 * data: it imports types only, so users/roles.ts may import it.
 */
import type { components, operations } from '../../generated/schema';

/** What a kind declares; an entry missing a field fails type-checking. */
interface KindDeclaration {
  /** The table of its rows (one id sequence per table, as WordPress's posts and terms). */
  table: string;
  /** The table of its own fields, keyed by the row's id; null when the shared table holds them all. */
  detailsTable: string | null;
  /** Its wire shape: a schema of the spec. */
  wireType: keyof components['schemas'];
  /** Its collection's path segment (`/events`), and its records' (`/events/{id}`). */
  collection: string;
  /** Its capabilities: a post type naming a set (`events`: `edit_events`…, users/roles.ts), or terms' one. */
  capability: string;
  /** Its search documents' kind (src/search/), or null when it is not searched. */
  searchKind: string | null;
  /** The table whose `stamp` the write kernel raises when it changes (core/stamps.ts, migration 014). */
  stampTable: string;
  /** The table whose `version` `If-Match` is checked against (core/preconditions.ts). */
  versionedTable: string;
  /** Whether its create answers `Location` (terms, as WordPress; posts send none, as the plugin). */
  answersLocation: boolean;
  /** Its public pages' path, `{site}/event/{slug}/`: the plugin's permalinks (docs/compatibility.md §7.3). */
  publicPath: string;
  /** The GETs of one record: their ETag leads with its version (http/caching.ts). */
  singleReads: ReadonlyArray<keyof operations>;
}

/** What posts share: their rows, version and stamp in `posts`, and no `Location` on create (as the plugin). */
const POST = { table: 'posts', stampTable: 'posts', versionedTable: 'posts', answersLocation: false } as const;

/** What terms share: all in `terms`, one capability, one search kind, `Location` on create (as WordPress). */
const TERM = {
  table: 'terms',
  detailsTable: null,
  capability: 'manage_categories',
  searchKind: 'term',
  stampTable: 'terms',
  versionedTable: 'terms',
  answersLocation: true,
} as const;

export const KINDS = {
  event: {
    ...POST,
    detailsTable: 'events',
    wireType: 'Event',
    collection: 'events',
    capability: 'events',
    searchKind: 'event',
    publicPath: 'event',
    singleReads: ['getEvent', 'getEventBySlug'],
  },
  venue: {
    ...POST,
    detailsTable: 'venues',
    wireType: 'Venue',
    collection: 'venues',
    capability: 'venues',
    searchKind: 'venue',
    publicPath: 'venue',
    singleReads: ['getVenue', 'getVenueBySlug'],
  },
  organizer: {
    ...POST,
    detailsTable: 'organizers',
    wireType: 'Organizer',
    collection: 'organizers',
    capability: 'organizers',
    searchKind: 'organizer',
    publicPath: 'organizer',
    singleReads: ['getOrganizer', 'getOrganizerBySlug'],
  },
  category: {
    ...TERM,
    wireType: 'Category',
    collection: 'categories',
    publicPath: 'events/category',
    singleReads: ['getCategory'],
  },
  tag: { ...TERM, wireType: 'Tag', collection: 'tags', publicPath: 'tag', singleReads: ['getTag'] },
} as const satisfies Record<string, KindDeclaration>;

type Kinds = typeof KINDS;
export type Kind = keyof Kinds;

/** The value of one field over every kind: `Declared<'stampTable'>` is `'posts' | 'terms'`. */
export type Declared<F extends keyof KindDeclaration> = Kinds[Kind][F];

/** The kinds whose rows live in this table: `KindIn<'posts'>` is `'event' | 'venue' | 'organizer'`. */
export type KindIn<T extends Declared<'table'>> = { [K in Kind]: Kinds[K]['table'] extends T ? K : never }[Kind];

/** Every kind, in declaration order. */
export const KIND_NAMES = Object.keys(KINDS) as Kind[];

/** The distinct values of one field, in the order the kinds declare them. */
export function declared<F extends keyof KindDeclaration>(field: F): Array<Declared<F>> {
  return [...new Set(KIND_NAMES.map((kind) => KINDS[kind][field] as Declared<F>))];
}
