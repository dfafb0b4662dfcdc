/**
 * `import tec`: copies a site of The Events Calendar (or another instance of this service, which answers as the
 * plugin does) through its REST API: categories (parents first), tags, venues, organizers, then events, each written
 * through this service's own services as the importing user. `import_mappings` keeps source id → local id per site,
 * so a second run updates what changed (and changes nothing when nothing did) and an interrupted run resumes.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Config, Language } from '../config';
import type { Db } from '../db/types';
import { ApiError } from '../core/errors';
import { message } from '../i18n/messages';
import type { Caller } from '../users/roles';
import { createEvent, updateEvent, type EventWrite } from '../resources/events/service';
import { findEvent } from '../resources/events/repository';
import { createLinked, linkedById, updateLinked } from '../resources/linked/service';
import { ORGANIZERS, VENUES, type LinkedKind } from '../resources/linked/kinds';
import { createTerm, updateTerm } from '../resources/terms/service';
import { CATEGORIES, TAGS, type TaxonomyInfo } from '../resources/terms/taxonomies';
import { findTerm } from '../resources/terms/repository';
import * as posts from '../resources/posts/repository';
import { EVENT_FIELDS } from '../kinds/fields/events';
import { ORGANIZER_FIELDS } from '../kinds/fields/organizers';
import { type FieldTable, fieldEntries, type TecMapping } from '../kinds/fields/table';
import { VENUE_FIELDS } from '../kinds/fields/venues';
import { fetchText, redacted, type FetchOptions } from './source';
import { findMapping, saveMapping } from './ics';
import { silentProgress, type Progress } from '../ops/progress';

export interface TecImportOptions {
  author: Caller;
  credentials?: { user: string; password: string };
  fetch: FetchOptions;
  language: Language;
}

export interface ResourceSummary {
  created: number;
  updated: number;
  unchanged: number;
  skipped: Array<{ id: number | string; reason: string }>;
}
export type TecSummary = Record<'categories' | 'tags' | 'venues' | 'organizers' | 'events', ResourceSummary>;

export class NotTecError extends Error {}

type Record_ = Record<string, unknown> & { id: number };

const PER_PAGE = 50;

export async function importTec(
  db: Db,
  config: Readonly<Config>,
  root: string,
  given: TecImportOptions,
  progress: Progress = silentProgress,
): Promise<TecSummary> {
  const options = { ...given, author: { ...given.author, via: 'import' as const } }; // the audit trail says so
  const base = root.replace(/\/+$/, '');
  const source = `tec:${createHash('sha256').update(base).digest('hex').slice(0, 32)}`;
  const get = reader(base, options);
  await assertTecApi(get, base);
  const summary = {} as TecSummary;
  const ctx: Ctx = { db, config, options, source, ids: new Map() };
  const every = { hide_empty: 'false' }; // terms without events are listed only when asked
  const categories = parentsFirst(await all(get, 'categories', every));
  summary.categories = await copy(ctx, progress, 'categories', categories, (item) => copyTerm(ctx, CATEGORIES, item));
  summary.tags = await copy(ctx, progress, 'tags', await all(get, 'tags', every), (item) => copyTerm(ctx, TAGS, item));
  const statuses: Record<string, string> = options.credentials
    ? { status: 'publish,future,draft,pending,private' }
    : {};
  summary.venues = await copy(ctx, progress, 'venues', await all(get, 'venues', statuses), (item) =>
    copyLinked(ctx, VENUES, item),
  );
  summary.organizers = await copy(ctx, progress, 'organizers', await all(get, 'organizers', statuses), (item) =>
    copyLinked(ctx, ORGANIZERS, item),
  );
  const window = { start_date: '1900-01-01 00:00:00', end_date: '2200-12-31 23:59:59', ...statuses };
  summary.events = await copy(ctx, progress, 'events', await all(get, 'events', window), (item) =>
    copyEvent(ctx, item),
  );
  return summary;
}

interface Ctx {
  db: Db;
  config: Readonly<Config>;
  options: TecImportOptions;
  source: string;
  /** kind:source id → local id, for links between records. */
  ids: Map<string, number>;
}

type Get = (
  path: string,
  query: Record<string, string | number>,
) => Promise<{ status: number; body: unknown; headers: Record<string, unknown> }>;

function reader(base: string, options: TecImportOptions): Get {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (options.credentials) {
    const { user, password } = options.credentials;
    headers.Authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  }
  return async (path, query) => {
    const url = new URL(`${base}/${path}`);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, String(value));
    const answer = await fetchText(url.href, { ...options.fetch, headers });
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      throw new NotTecError(`${redacted(url.href)} did not answer JSON: not the REST API of The Events Calendar`);
    }
    return { status: answer.status, body, headers: answer.headers };
  };
}

/** The namespace index names the plugin's routes; anything else is a clear error. */
async function assertTecApi(get: Get, base: string): Promise<void> {
  const index = await get('', {}).catch((err: unknown) => {
    throw err instanceof NotTecError ? err : new NotTecError(`${redacted(base)}: ${(err as Error).message}`);
  });
  const routes = (index.body as { routes?: Record<string, unknown> })?.routes;
  const namespace = String((index.body as { namespace?: unknown })?.namespace ?? '');
  const hasEvents = routes && Object.keys(routes).some((route) => /\/events$/.test(route));
  if (index.status !== 200 || !hasEvents || !/events\/v1$/.test(namespace)) {
    throw new NotTecError(
      `${redacted(base)} is not the REST API of The Events Calendar ` +
        '(expected a namespace index like /wp-json/tribe/events/v1)',
    );
  }
}

/** Every page of a list route. */
async function all(get: Get, key: string, query: Record<string, string>): Promise<Record_[]> {
  const items: Record_[] = [];
  for (let page = 1; ; page++) {
    const answer = await get(key, { ...query, per_page: PER_PAGE, page });
    if (answer.status === 404 && page > 1) break; // past the last page
    if (answer.status !== 200)
      throw new Error(`${key} page ${page} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 200)}`);
    const list = (answer.body as Record<string, unknown>)[key];
    if (!Array.isArray(list))
      throw new NotTecError(`${key} answered without a "${key}" list: not the REST API of The Events Calendar`);
    items.push(...(list as Record_[]));
    const pages = Number(
      (answer.body as { total_pages?: unknown }).total_pages ?? answer.headers['x-tec-totalpages'] ?? 1,
    );
    if (page >= pages || list.length === 0) break;
  }
  return items;
}

function parentsFirst(terms: Record_[]): Record_[] {
  const byId = new Map(terms.map((t) => [t.id, t]));
  const depth = (t: Record_, seen = 0): number =>
    t.parent && byId.has(Number(t.parent)) && seen < 100
      ? 1 + depth(byId.get(Number(t.parent)) as Record_, seen + 1)
      : 0;
  return [...terms].sort((a, b) => depth(a) - depth(b) || a.id - b.id);
}

type Outcome = 'created' | 'updated' | 'unchanged';

async function copy(
  ctx: Ctx,
  progress: Progress,
  label: string,
  items: Record_[],
  one: (item: Record_) => Promise<Outcome>,
): Promise<ResourceSummary> {
  const summary: ResourceSummary = { created: 0, updated: 0, unchanged: 0, skipped: [] };
  progress.start(label, items.length);
  for (const item of items) {
    progress.advance();
    try {
      summary[await one(item)]++;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      summary.skipped.push({
        id: item.id,
        reason: `${err.code}: ${message(ctx.options.language, err.messageKey, err.values)}`,
      });
    }
  }
  progress.stop();
  return summary;
}

const fingerprintOf = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');
const keyOf = (item: Record_) => String(item.global_id ?? item.id);

/**
 * One record: unchanged when its fingerprint matches the last run's and the local record still exists; else
 * written (`write` creates when `localId` is undefined) with its mapping, in one transaction.
 */
async function upsert(
  ctx: Ctx,
  kind: string,
  item: Record_,
  fingerprintSource: unknown,
  exists: (trx: Knex.Transaction, id: number) => Promise<boolean>,
  write: (trx: Knex.Transaction, localId: number | undefined) => Promise<number>,
): Promise<Outcome> {
  const fingerprint = fingerprintOf(fingerprintSource);
  return ctx.db.transaction(async (trx) => {
    const mapped = await findMapping(trx, ctx.source, kind, keyOf(item));
    const live = mapped && (await exists(trx, mapped.local_id)) ? mapped.local_id : undefined;
    if (live !== undefined) ctx.ids.set(`${kind}:${item.id}`, live);
    if (live !== undefined && mapped?.fingerprint === fingerprint) return 'unchanged';
    const id = await write(trx, live);
    await saveMapping(trx, ctx.source, kind, keyOf(item), id, fingerprint);
    ctx.ids.set(`${kind}:${item.id}`, id);
    return live === undefined ? 'created' : 'updated';
  });
}

const asDb = (trx: Knex.Transaction) => trx as unknown as Db; // services open a savepoint inside it

async function copyTerm(ctx: Ctx, info: TaxonomyInfo, item: Record_): Promise<Outcome> {
  const parent = info.hierarchical && item.parent ? (ctx.ids.get(`${info.key}:${item.parent}`) ?? 0) : undefined;
  const body = {
    name: String(item.name),
    slug: String(item.slug),
    description: String(item.description ?? ''),
    ...(parent !== undefined ? { parent } : {}),
  };
  return upsert(
    ctx,
    info.key,
    item,
    body,
    async (trx, id) => Boolean(await findTerm(trx, info.taxonomy, id)),
    async (trx, localId) => {
      if (localId !== undefined) return (await updateTerm({ db: asDb(trx) }, info, writerOf(ctx), localId, body)).id;
      return (await createTerm({ db: asDb(trx) }, info, writerOf(ctx), body)).id;
    },
  );
}

type Copied = Array<[wire: string, as: TecMapping]>;

/**
 * What the importer copies of a kind, from its field table: the record's texts (its `posts` fields copied as text),
 * which go before the head of the body (slug, status, dates), then its other fields. The body's key order is that of
 * the stored fingerprints, so it never changes for the fields there are.
 */
function copiedFields(fields: FieldTable): { texts: Copied; rest: Copied } {
  const texts: Copied = [];
  const rest: Copied = [];
  for (const [, field] of fieldEntries(fields)) {
    if (!field.tec || !field.wire) continue;
    const isText = field.table === 'posts' && (field.tec === 'text' || field.tec === 'nonEmptyText');
    (isText ? texts : rest).push([field.wire, field.tec]);
  }
  return { texts, rest };
}

const COPIED: Record<'event' | 'venue' | 'organizer', { texts: Copied; rest: Copied }> = {
  event: copiedFields(EVENT_FIELDS),
  venue: copiedFields(VENUE_FIELDS),
  organizer: copiedFields(ORGANIZER_FIELDS),
};

/** The source's values of `copied`, as the field tables say to copy each. */
function valuesOf(item: Record_, copied: Copied): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [wire, as] of copied) {
    const value = item[wire];
    if (as === 'text') values[wire] = String(value);
    else if (as === 'textOrEmpty') values[wire] = String(value ?? '');
    else if (as === 'flag') values[wire] = Boolean(value);
    // the services refuse an empty description: absent is the same as empty
    else if (as === 'nonEmptyText') {
      if (typeof value === 'string' && value !== '') values[wire] = value;
    } else if (value !== undefined && value !== null) values[wire] = value;
  }
  return values;
}

async function copyLinked(ctx: Ctx, kind: LinkedKind, item: Record_): Promise<Outcome> {
  const { texts, rest } = COPIED[kind.type];
  const body: Record<string, unknown> = {
    ...valuesOf(item, texts),
    status: item.status,
    date_utc: item.date_utc,
    ...valuesOf(item, rest),
  };
  const image = imageUrl(item.image);
  if (image) body.image = image;
  return upsert(
    ctx,
    kind.plural,
    item,
    { body, slug: item.slug },
    async (trx, id) => (await posts.existingIds(trx, kind.type, [id])).size > 0,
    async (trx, localId) => {
      const services = { db: asDb(trx), config: ctx.config };
      let id = localId;
      if (id === undefined) id = await createLinked(services, kind, writerOf(ctx), body);
      else await updateLinked(services, kind, writerOf(ctx), await linkedById(trx, kind, id), body);
      await keepSlug(trx, kind.type, id, String(item.slug ?? ''));
      return id;
    },
  );
}

/** Venues and organizers take their slug from their name; the copy keeps the source's when it is free. */
async function keepSlug(
  trx: Knex.Transaction,
  type: 'venue' | 'organizer' | 'event',
  id: number,
  slug: string,
): Promise<void> {
  if (!slug || !/^[a-z0-9-]+$/.test(slug)) return;
  if ((await posts.freeSlug(trx, type, slug, id)) === slug) await posts.updatePost(trx, id, { slug });
}

function imageUrl(image: unknown): string | undefined {
  const url = image && typeof image === 'object' ? (image as { url?: unknown }).url : undefined;
  return typeof url === 'string' && /^https?:\/\//.test(url) ? url : undefined;
}

async function copyEvent(ctx: Ctx, item: Record_): Promise<Outcome> {
  const ids = (kind: string, list: unknown) =>
    (Array.isArray(list) ? list : list ? [list] : [])
      .map((ref) => ctx.ids.get(`${kind}:${(ref as { id: number }).id}`))
      .filter((id): id is number => id !== undefined);
  const venue = ids('venues', Array.isArray(item.venue) ? item.venue : item.venue ? [item.venue] : []);
  const { texts, rest } = COPIED.event;
  const body: EventWrite = {
    ...valuesOf(item, texts),
    slug: String(item.slug),
    status: item.status as EventWrite['status'],
    date_utc: String(item.date_utc),
    ...valuesOf(item, rest),
    venue: venue[0] ?? 0,
    organizer: ids('organizers', item.organizer),
    categories: ids('categories', item.categories),
    tags: ids('tags', item.tags),
  } as EventWrite;
  // the plugin shows the page URL when unset
  if (item.website && item.website !== item.url) body.website = String(item.website);
  const image = imageUrl(item.image);
  if (image) body.image = image;
  return upsert(
    ctx,
    'events',
    item,
    body,
    async (trx, id) => Boolean(await findEvent(trx, id)),
    async (trx, localId) => {
      const services = { db: asDb(trx), config: ctx.config };
      if (localId === undefined) return createEvent(services, writerOf(ctx), body);
      const current = (await findEvent(trx, localId)) as NonNullable<Awaited<ReturnType<typeof findEvent>>>;
      await updateEvent(services, writerOf(ctx), current, body);
      return localId;
    },
  );
}

/** The importer writes as its author, in the import's language. */
function writerOf(ctx: Ctx) {
  return { caller: ctx.options.author, language: ctx.options.language };
}
