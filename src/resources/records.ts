/**
 * One renderer per kind of record, as a reader sees it: the wire shape of its own GET route, translated into the
 * reader's language, with what it embeds. Single reads and every list (as cached bytes, the last step of
 * core/lists.ts), the change feed, webhook messages and created records all render through here, so a record reads
 * the same wherever it is seen.
 */
import type { components } from '../../generated/schema';
import type { Reader } from '../core/reader';
import type { MovedTerm } from '../cache/proofs';
import type { Resource } from '../core/outbox';
import { canRead } from '../users/roles';
import { unlocked } from './events/access';
import { eventParts, type TermShown } from './events/dependencies';
import { renderEmbeddedTerms, withTerms } from './events/embedded-terms';
import { loadRelations, toWireEvent } from './events/mapper';
import { findEvent, type EventRow } from './events/repository';
import { imagesByIds } from './images/images';
import { ORGANIZERS, VENUES, type LinkedKind, type LinkedRow, type LinkedType, type LinkedWire } from './linked/kinds';
import { toWireTerm } from './terms/mapper';
import { findTerm, slugPaths, type TermRow } from './terms/repository';
import { CATEGORIES, TAGS, type TaxonomyInfo, type TermKey, type TermWire } from './terms/taxonomies';
import { translatePosts, translateTerms } from './translations';
import { versionTag } from '../core/preconditions';

type Event = components['schemas']['Event'];

/** A record in the wire shape of its own GET route. */
export type WireRecord = Event | LinkedWire<LinkedType> | TermWire<TermKey>;

/** How an event is shown: as a single read (with `json_ld`), and with its protected fields blanked. */
export interface EventView {
  single?: boolean;
  blanked?: boolean;
}

/** Events in the wire shape; `view` is the same for all, or given per row. */
export async function renderEvents(
  { db, language, caller, render }: Reader,
  rows: EventRow[],
  view: EventView | ((row: EventRow) => EventView) = {},
): Promise<Event[]> {
  const translated = await translatePosts(db, rows, language);
  const relations = await loadRelations(db, translated, language, caller);
  const viewOf = typeof view === 'function' ? view : () => view;
  return translated.map((row, i) => toWireEvent(render, row, relations, viewOf(rows[i])));
}

/**
 * Events as the bytes of their JSON, each rendered once per version of what it shows (src/cache/): a page of events
 * costs one query for the stamps of what they embed (events/dependencies.ts) and the rendering of those not held.
 * Each is kept without its categories and tags, which are kept apart and spliced back (events/embedded-terms.ts).
 */
export async function eventBytes(
  reader: Reader,
  rows: EventRow[],
  view: EventView | ((row: EventRow) => EventView) = {},
): Promise<Buffer[]> {
  if (!rows.length) return [];
  const views = rows.map(typeof view === 'function' ? view : () => view);
  if (!reader.cache.enabled && !reader.witness) {
    return reader.cache.fetch(
      rows.map(() => ''),
      async () => (await renderEvents(reader, rows, view)).map(toBytes),
    );
  }
  const parts = await eventParts(reader.db, rows, views, reader.caller, scopeOf(reader), reader.witness);
  const rendered = new Map<number, Buffer>(); // terms of the events rendered now: kept without reading them again
  const withoutTerms = await reader.cache.fetch(
    parts.map((part) => part.key),
    async (missing) => {
      const viewOf = new Map(missing.map((i) => [rows[i], views[i]]));
      const missingRows = missing.map((i) => rows[i]);
      const events = await renderEvents(reader, missingRows, (row) => viewOf.get(row) ?? {});
      for (const term of events.flatMap((event) => [...event.categories, ...event.tags])) {
        rendered.set(term.id, toBytes(term));
      }
      return events.map((event) => toBytes({ ...event, categories: [], tags: [] }));
    },
  );
  const shown = parts.map((part, i) => (views[i].blanked ? [] : part.terms));
  const embedded = await embeddedTermBytes(reader, shown.flat(), rendered);
  return withoutTerms.map((bytes, i) => withTerms(bytes, shown[i], embedded));
}

/**
 * The bytes of each of these terms as events embed them, by id (empty for a term deleted meanwhile): from the cache,
 * else from `rendered` (the terms of events rendered for this page), else rendered now.
 */
async function embeddedTermBytes(
  reader: Reader,
  terms: TermShown[],
  rendered: Map<number, Buffer>,
): Promise<Map<number, Buffer>> {
  const unique = [...new Map(terms.map((term) => [term.id, term])).values()];
  const scope = scopeOf(reader);
  const bytes = await reader.cache.fetch(
    unique.map(({ id, stamp }) => embeddedTermKey(scope, id, stamp)),
    async (missing) => {
      const ids = missing.map((i) => unique[i].id);
      const unrendered = ids.filter((id) => !rendered.has(id));
      const terms = unrendered.length
        ? await renderEmbeddedTerms(reader.db, unrendered, reader.language, reader.render)
        : [];
      for (const term of terms) rendered.set(term.id, toBytes(term));
      return ids.map((id) => rendered.get(id) ?? Buffer.alloc(0));
    },
  );
  return new Map(unique.map(({ id }, i) => [id, bytes[i]]));
}

const toBytes = (record: unknown) => Buffer.from(JSON.stringify(record));

/** Where a term's bytes as events embed them are kept: by scope, id and stamp. */
const embeddedTermKey = (scope: string, id: number, stamp: number) => `${scope}|embedded-term|${id}.${stamp}`;

/**
 * A kept answer showing events (`body`) with these embedded terms spliced anew at their new stamps, or undefined
 * when it cannot be told exactly: a term's bytes at its old stamp no longer held, or not in the answer (a term the
 * answer read but does not show), or deleted meanwhile. Every other byte of the answer stays: the terms kept their
 * places (cache/proofs.ts), and a term's bytes, an object with its own `id`, occur nowhere else in an event.
 */
export async function renewEmbeddedTerms(reader: Reader, body: Buffer, moved: MovedTerm[]) {
  const scope = scopeOf(reader);
  const old = moved.map(({ id, from }) => reader.cache.held(embeddedTermKey(scope, id, from)));
  if (old.some((bytes) => !bytes?.length)) return undefined;
  const shown = moved.map(({ id, to }) => ({ id, stamp: to, taxonomy: '' }));
  const fresh = await embeddedTermBytes(reader, shown, new Map());
  let renewed: Buffer | undefined = body;
  for (let i = 0; i < moved.length && renewed; i++) {
    const now = fresh.get(moved[i].id);
    renewed = now?.length ? replaceAll(renewed, old[i] as Buffer, now) : undefined;
  }
  return renewed;
}

/** `bytes` with every occurrence of `from` replaced by `to`; undefined when there is none. */
function replaceAll(bytes: Buffer, from: Buffer, to: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let start = 0;
  for (let at = bytes.indexOf(from); at >= 0; at = bytes.indexOf(from, start)) {
    parts.push(bytes.subarray(start, at), to);
    start = at + from.length;
  }
  if (!parts.length) return undefined;
  parts.push(bytes.subarray(start));
  return Buffer.concat(parts);
}

/** Venues or organizers as the bytes of their JSON: they embed nothing that changes apart from them. */
export function linkedBytes<T extends LinkedType>(
  reader: Reader,
  kind: LinkedKind<T>,
  rows: LinkedRow[],
  withJsonLd: boolean,
): Promise<Buffer[]> {
  const keys = async () =>
    keyed(`${kind.type}|${scopeOf(reader)}|${withJsonLd ? 'j' : '-'}`, rows, seen(reader, 'posts'));
  return cachedBytes(reader, rows, keys, (missing) => renderLinked(reader, kind, missing, withJsonLd));
}

/**
 * Categories or tags as the bytes of their JSON (a term's stamp moves with its count too, and with its ancestors'
 * slugs, which its link names).
 */
export function termBytes<K extends TermKey>(reader: Reader, info: TaxonomyInfo<K>, rows: TermRow[]) {
  const keys = async () => keyed(`${info.taxonomy}|${scopeOf(reader)}`, rows, seen(reader, 'terms'));
  return cachedBytes(reader, rows, keys, (missing) => renderTerms(reader, info, missing));
}

/** What every key holds: the language, and the root the URLs are built on. */
const scopeOf = (reader: Reader) => `${reader.language}|${reader.render.root}`;
/**
 * Keys of records that embed nothing that changes apart from them: the scope, then each one's id and stamp (told to
 * `saw`, the witness of the answer showing them).
 */
const keyed = (scope: string, rows: Array<{ id: number; stamp: number }>, saw: (id: number, stamp: number) => void) =>
  rows.map((row) => {
    saw(row.id, row.stamp);
    return `${scope}|${row.id}.${row.stamp}`;
  });

/** Tells the reader's witness, if any, of a record of `table` shown. */
const seen =
  ({ witness }: Reader, table: 'posts' | 'terms') =>
  (id: number, stamp: number) =>
    witness?.saw(table, id, stamp);

/** The bytes of each row's representation: from the cache where held, else rendered and kept. */
async function cachedBytes<R>(
  reader: Reader,
  rows: R[],
  keys: () => Promise<string[]>,
  render: (missing: R[]) => Promise<unknown[]>,
): Promise<Buffer[]> {
  const { cache } = reader;
  if (!rows.length) return [];
  // the keys are read for a witness too: what they name is what the answer shows
  const named = cache.enabled || reader.witness ? await keys() : rows.map(() => '');
  return cache.fetch(named, async (positions) => (await render(positions.map((i) => rows[i]))).map(toBytes));
}

/** Venues or organizers in the wire shape (`withJsonLd` as single reads show them). */
export async function renderLinked<T extends LinkedType>(
  { db, language, render }: Reader,
  kind: LinkedKind<T>,
  rows: LinkedRow[],
  withJsonLd: boolean,
): Promise<LinkedWire<T>[]> {
  const translated = await translatePosts(db, rows, language);
  const images = await imagesByIds(
    db,
    translated.flatMap((row) => (row.image_id === null ? [] : [row.image_id])),
  );
  return translated.map((row) => kind.toWire(render, row, images, withJsonLd));
}

/** Categories or tags in the wire shape. */
export async function renderTerms<K extends TermKey>(
  { db, language, render }: Reader,
  info: TaxonomyInfo<K>,
  rows: TermRow[],
): Promise<TermWire<K>[]> {
  const paths = info.hierarchical ? await slugPaths(db, info.taxonomy, rows) : new Map<number, string>();
  return (await translateTerms(db, rows, language)).map((row) => toWireTerm(render, info, row, paths.get(row.id)));
}

const owned = (row: { author_id: number | null; status: string }) => ({ authorId: row.author_id, status: row.status });

/** How each kind of record is read by id, as its single read shows it (a missing kind fails type-checking). */
const READERS: Record<Resource, (reader: Reader, id: number) => Promise<WireRecord | undefined>> = {
  event: (reader, id) => readEvent(reader, id),
  venue: (reader, id) => readLinked(reader, VENUES, id),
  organizer: (reader, id) => readLinked(reader, ORGANIZERS, id),
  category: (reader, id) => readTerm(reader, CATEGORIES, id),
  tag: (reader, id) => readTerm(reader, TAGS, id),
};

/**
 * A record's single read as `reader` gets it (`GET /events/{id}` and the like, without `password`): its version tag
 * and the bytes of its JSON (those the cache would hold), taken from one row, or undefined when they may not read it.
 * The ETags of write answers and of 412s are made from it (http/caching.ts), so that they name what the record's GET
 * answers.
 */
export async function singleReadAnswer(
  reader: Reader,
  table: 'posts' | 'terms',
  id: number,
): Promise<{ version: string; bytes: Buffer } | undefined> {
  // rendered apart from the cache: a write's answer leaves the cache to the reads
  const answer = (row: { id: number; version: number }, records: unknown[]) => ({
    version: versionTag(row),
    bytes: Buffer.from(JSON.stringify(records[0])),
  });
  if (table === 'terms') {
    const found = (await reader.db('terms').where({ id }).first('taxonomy')) as { taxonomy: string } | undefined;
    const info = found && [CATEGORIES, TAGS].find((taxonomy) => taxonomy.taxonomy === found.taxonomy);
    const row = info && (await findTerm(reader.db, info.taxonomy, id));
    return row && answer(row, await renderTerms(reader, info, [row]));
  }
  const post = (await reader.db('posts').where({ id }).first('type')) as { type: string } | undefined;
  if (post?.type === 'event') {
    const row = await findEvent(reader.db, id);
    if (!row || row.status === 'trash' || !canRead(reader.caller, 'events', owned(row))) return undefined;
    if (!unlocked(row, reader.caller, undefined)) return undefined;
    return answer(row, await renderEvents(reader, [row], { single: true }));
  }
  const kind = [VENUES, ORGANIZERS].find((linked) => linked.type === post?.type);
  const row = kind && (await kind.load(reader.db, [id])).get(id);
  if (!kind || !row || !canRead(reader.caller, kind.plural, owned(row))) return undefined;
  return answer(row, await renderLinked(reader, kind, [row], true));
}

/**
 * A created event as its create answers it (`body`, the wire shape without `json_ld`) and as `singleReadAnswer` gives
 * its GET to the reader (`read`, undefined when they may not read it), from one read of the row and its relations.
 */
export async function createdEventAnswers(
  reader: Reader,
  id: number,
): Promise<{ body: Event | undefined; read: { version: string; bytes: Buffer } | undefined }> {
  const row = await findEvent(reader.db, id);
  if (!row) return { body: undefined, read: undefined };
  const [translated] = await translatePosts(reader.db, [row], reader.language);
  const relations = await loadRelations(reader.db, [translated], reader.language, reader.caller);
  const body = toWireEvent(reader.render, translated, relations, {});
  const readable =
    row.status !== 'trash' && canRead(reader.caller, 'events', owned(row)) && unlocked(row, reader.caller, undefined);
  if (!readable) return { body, read: undefined };
  const single = toWireEvent(reader.render, translated, relations, { single: true });
  return { body, read: { version: versionTag(row), bytes: Buffer.from(JSON.stringify(single)) } };
}

/** The record as `reader` may read it, or undefined when they cannot (gone, trashed, draft, private…). */
export function readRecord(reader: Reader, resource: Resource, id: number): Promise<WireRecord | undefined> {
  return READERS[resource](reader, id);
}

async function readEvent(reader: Reader, id: number): Promise<Event | undefined> {
  const row = await findEvent(reader.db, id);
  if (!row || row.status === 'trash' || !canRead(reader.caller, 'events', owned(row))) return undefined;
  // a password-protected event reads as the lists show it: protected fields blanked unless the caller may edit it
  const [event] = await renderEvents(reader, [row], {
    single: true,
    blanked: !unlocked(row, reader.caller, undefined),
  });
  return event;
}

async function readLinked<T extends LinkedType>(
  reader: Reader,
  kind: LinkedKind<T>,
  id: number,
): Promise<LinkedWire<T> | undefined> {
  const row = (await kind.load(reader.db, [id])).get(id);
  if (!row || row.type !== kind.type || row.status === 'trash' || !canRead(reader.caller, kind.plural, owned(row))) {
    return undefined;
  }
  return (await renderLinked(reader, kind, [row], true))[0];
}

async function readTerm<K extends TermKey>(
  reader: Reader,
  info: TaxonomyInfo<K>,
  id: number,
): Promise<TermWire<K> | undefined> {
  const row = await findTerm(reader.db, info.taxonomy, id);
  return row && (await renderTerms(reader, info, [row]))[0];
}
