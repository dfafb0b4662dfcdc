/**
 * Venue and organizer reads and writes (docs/compatibility.md §2.3, §3, §4.6, §4.7, §5.2; docs/decisions.md D29):
 * duplicate reuse on create (also for records created inline by an event write), status rules by role, trash that
 * unlinks from events, 410 on repeat, `force`, and the list filters. Every write is one transaction.
 */
import type { Config } from '../../config';
import type { Executor } from '../../db/types';
import type { Knex } from 'knex';
import { lockFor, utcNow } from '../../db/dialect';
import { formatUtc, parseDateInput } from '../../domain/dates';
import { sanitizeHtml, sanitizeText } from '../../domain/html';
import { makeSlug } from '../../domain/slugs';
import { ApiError, invalidParam } from '../../core/errors';
import type { Precondition } from '../../core/preconditions';
import { changes } from '../../core/audit';
import { type OnCreated, type Services, type Write, type Writer, write } from '../../core/write';
import { isTruthyText } from '../../core/flags';
import { canChange, canRead, type Caller } from '../../users/roles';
import { checkedAuthor, checkedUrl } from '../posts/fields';
import { resolveImage } from '../images/images';
import * as posts from '../posts/repository';
import { eventExists } from '../posts/repository';
import { listStatuses, statusToStore, whereReadable } from '../posts/rules';
import { splitPostWrite } from '../translations';
import { roundCoordinate } from '../../domain/geo';
import type { LinkedKind, LinkedRow } from './kinds';
import * as repo from './repository';
import { prepareSearch } from '../../search/predicate';

export type LinkedWrite = Record<string, unknown>;

const owned = (row: LinkedRow) => ({ authorId: row.author_id, status: row.status });

/** By id: anything that is not a record of this kind is 400 naming `id` (the plugin's id validator). */
export async function linkedById(db: Executor, kind: LinkedKind, id: number): Promise<LinkedRow> {
  const row = (await kind.load(db, [id])).get(id);
  if (!row || row.type !== kind.type) throw invalidParam('id', `${kind.type}_invalid`);
  return row;
}

/** By slug: an unknown slug is 400 naming `slug`. */
export async function linkedBySlug(db: Executor, kind: LinkedKind, slug: string): Promise<LinkedRow> {
  const post = await posts.findPostBySlug(db, kind.type, slug);
  if (!post) throw invalidParam('slug', 'slug_unknown');
  return (await kind.load(db, [post.id])).get(post.id) as LinkedRow;
}

/** Single reads (docs/compatibility.md §3.2): unpublished records (trash included) need the read right. */
export function assertReadable(kind: LinkedKind, row: LinkedRow, caller: Caller | undefined): void {
  if (!canRead(caller, kind.plural, owned(row)))
    throw new ApiError(403, `${kind.type}-not-accessible`, 'post_not_accessible');
}

/**
 * Creates the record, or reuses a duplicate (same name, and the same value of each duplicate field sent) and writes
 * the sent fields onto it; `created` (the request's hook, http/creates.ts) is told its id inside the transaction.
 */
export function createLinked(
  { db, config }: Services,
  kind: LinkedKind,
  writer: Writer,
  body: LinkedWrite,
  created?: OnCreated,
): Promise<number> {
  return write(db, async (w) => {
    const id = await createLinkedIn(w, config, kind, writer, body);
    await created?.(w.trx, id);
    return id;
  });
}

/** The same inside a running write (an event write creating its venue or organizers inline). */
export async function createLinkedIn(
  w: Write,
  config: Readonly<Config>,
  kind: LinkedKind,
  writer: Writer,
  body: LinkedWrite,
): Promise<number> {
  const { trx } = w;
  const name = nameOf(kind, body[kind.type]);
  await lockFor(trx, `${kind.type}:${name.toLowerCase()}`); // the duplicate check and the insert, one writer per name
  // only a record the writer may read is reused: reusing another's draft would show it, or tell that it exists
  const readable = (q: Knex.QueryBuilder) =>
    whereReadable(q, writer.caller, kind.plural, 'p.status', () => 'p.author_id');
  const found = await repo.findDuplicate(trx, kind, name, duplicateMatch(kind, body), readable);
  const duplicate = found === undefined ? undefined : (await kind.load(trx, [found])).get(found);
  // the sent fields are written onto a reused record: only one its writer may edit, else a record of their own
  if (duplicate && canChange(writer.caller, 'edit', kind.plural, owned(duplicate))) {
    await writeFields(w, config, kind, writer, body, duplicate);
    w.change(kind.type, duplicate.id, 'updated');
    return duplicate.id;
  }
  const now = utcNow();
  const slug = await posts.freeSlug(trx, kind.type, makeSlug(name) || kind.type);
  const id = await posts.insertPost(trx, {
    type: kind.type,
    status: 'draft',
    author_id: writer.caller.id,
    slug,
    language: writer.language,
    title: name,
    content: '',
    excerpt: '',
    password: '',
    date_utc: now,
    modified_utc: now,
  });
  await repo.insertDetails(trx, kind, id, {});
  await writeFields(w, config, kind, writer, body, undefined, id);
  w.change(kind.type, id, 'created');
  return id;
}

/** The duplicate fields a create sends, cleaned as they would be stored: `p.`/`d.` column → text. */
function duplicateMatch(kind: LinkedKind, body: LinkedWrite): Record<string, string> {
  const match: Record<string, string> = {};
  if (body.description !== undefined) match['p.content'] = cleanText(kind, String(body.description), true);
  for (const field of kind.duplicateFields) {
    if (body[field] !== undefined) match[`d.${field}`] = cleanText(kind, String(body[field]), false);
  }
  return match;
}

/** Updates the fields sent, after the per-record edit check; `""` clears a field. */
export async function updateLinked(
  { db, config }: Services,
  kind: LinkedKind,
  writer: Writer,
  row: LinkedRow,
  body: LinkedWrite,
  expect?: Precondition,
): Promise<void> {
  assertMayChange(kind, writer.caller, 'edit', row);
  const guarded = { table: 'posts', id: row.id, expect } as const;
  await write(
    db,
    async (w) => {
      await writeFields(w, config, kind, writer, body, row);
      w.change(kind.type, row.id, 'updated');
    },
    { precondition: guarded },
  );
}

/** Trash (unlinking from events) by default, 410 when already there; `force` deletes permanently. */
export async function deleteLinked(
  { db }: Pick<Services, 'db'>,
  kind: LinkedKind,
  caller: Caller,
  row: LinkedRow,
  { force = false, expect }: { force?: boolean; expect?: Precondition },
): Promise<LinkedRow> {
  assertMayChange(kind, caller, 'delete', row);
  if (!force && row.status === 'trash') {
    throw new ApiError(410, `${kind.type}-is-in-trash`, 'post_in_trash', { id: row.id });
  }
  const guarded = { table: 'posts', id: row.id, expect } as const;
  await write(
    db,
    async (w) => {
      const unlinked = await repo.linkedEventIds(w.trx, kind, row.id);
      if (force) {
        await posts.deletePost(w.trx, row.id);
        w.search('posts', [row.id]);
      } else {
        await posts.updatePost(w.trx, row.id, { status: 'trash', modified_utc: utcNow() });
        await repo.unlinkFromEvents(w.trx, kind, row.id);
      }
      w.change('event', unlinked, 'updated'); // their records lose it
      const status = force ? { old: row.status } : { old: row.status, new: 'trash' };
      w.audit(
        caller,
        force ? 'delete' : 'trash',
        kind.type,
        row.id,
        force ? { title: { old: row.title }, status } : { status },
      );
      w.change(kind.type, row.id, 'deleted');
    },
    { precondition: guarded },
  );
  if (force) return row;
  return (await kind.load(db, [row.id])).get(row.id) as LinkedRow;
}

function assertMayChange(kind: LinkedKind, caller: Caller, action: 'edit' | 'delete', row: LinkedRow): void {
  if (!canChange(caller, action, kind.plural, owned(row))) throw new ApiError(403, 'rest_forbidden', 'forbidden');
}

/** Writes the sent fields of `body` onto the record (`current` on update, or the new `id`). */
async function writeFields(
  w: Write,
  config: Readonly<Config>,
  kind: LinkedKind,
  { caller, language }: Writer,
  body: LinkedWrite,
  current: LinkedRow | undefined,
  id = current?.id as number,
): Promise<void> {
  const { trx } = w;
  const post: Partial<posts.PostValues> = {};
  const details: Record<string, unknown> = {};
  const now = utcNow();
  if (body[kind.type] !== undefined) post.title = nameOf(kind, body[kind.type]);
  if (body.description !== undefined) post.content = cleanText(kind, String(body.description), true);
  if (body.author !== undefined) post.author_id = await checkedAuthor(trx, caller, kind.plural, Number(body.author));
  for (const [field, zone] of [
    ['date', config.siteTimezone],
    ['date_utc', 'UTC'],
  ] as const) {
    if (body[field] === undefined) continue;
    const instant = parseDateInput(body[field] as string | number, zone);
    if (!instant) throw invalidParam(field, 'date_invalid');
    post.date_utc = formatUtc(instant);
  }
  if (!current || body.status !== undefined || post.date_utc !== undefined) {
    post.status = statusToStore(
      caller,
      kind.plural,
      body.status as string | undefined,
      current?.status,
      post.date_utc ?? current?.date_utc ?? now,
      now,
    );
  }
  for (const field of kind.textFields) {
    if (body[field] === undefined) continue;
    const text = cleanText(kind, String(body[field]), false);
    details[field] = field === 'website' ? checkedUrl('website', text) : text;
  }
  if (body.image !== undefined)
    details.image_id = body.image === '' ? null : await resolveImage(trx, body.image as number | string, caller);
  if (kind.type === 'venue') Object.assign(details, venueOnly(body), stateProvince(details, current));
  // text in another language than the record's own is stored as its translation
  const own = current ? await splitPostWrite(trx, id, current.language, language, post) : post;
  await posts.updatePost(trx, id, { ...own, modified_utc: now });
  await repo.updateDetails(trx, kind, id, details);
  w.search('posts', [id], { made: !current }); // without `current`, the record was inserted by this write
  // the one audit entry of a create, a reused duplicate or an update
  const changed = changes(current as Record<string, unknown> | undefined, { ...post, ...details });
  w.audit(caller, current ? 'update' : 'create', kind.type, id, changed);
}

/** Map flags (booleans or the plugin's truthy strings) and coordinates (both or neither, `""` clears). */
function venueOnly(body: LinkedWrite): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const flag of ['show_map', 'show_map_link']) {
    if (body[flag] !== undefined) values[flag] = isTruthyText(body[flag]);
  }
  const [lat, lng] = [body.geo_lat, body.geo_lng];
  if (lat === undefined && lng === undefined) return values;
  if (lat === '' || lng === '') {
    if ((lat ?? '') !== '' || (lng ?? '') !== '') throw invalidParam(lat === '' ? 'geo_lng' : 'geo_lat', 'geo_pair');
    return { ...values, geo_lat: null, geo_lng: null };
  }
  if (lat === undefined) throw invalidParam('geo_lat', 'geo_pair');
  if (lng === undefined) throw invalidParam('geo_lng', 'geo_pair');
  return { ...values, geo_lat: roundCoordinate(Number(lat)), geo_lng: roundCoordinate(Number(lng)) };
}

/**
 * A venue given `state` or `province` but no `stateprovince` gets the state, else the province, as its
 * `stateprovince` (the plugin derives it so; its clients read that field).
 */
function stateProvince(details: Record<string, unknown>, current: LinkedRow | undefined): Record<string, unknown> {
  if (details.stateprovince !== undefined || (details.state === undefined && details.province === undefined)) return {};
  const stored = current as (LinkedRow & { state?: string; province?: string }) | undefined;
  const state = (details.state ?? stored?.state ?? '') as string;
  const province = (details.province ?? stored?.province ?? '') as string;
  return { stateprovince: state || province };
}

function nameOf(kind: LinkedKind, value: unknown): string {
  const name = sanitizeText(String(value ?? '')).replace(/\s*\n\s*/g, ' ');
  if (!name) throw invalidParam(kind.type, 'param_min_length', { limit: 1 });
  return name;
}

/** Organizer text loses tags and line breaks; venue descriptions keep allowed HTML. */
function cleanText(kind: LinkedKind, text: string, html: boolean): string {
  if (kind.plainText) return sanitizeText(text).replace(/\s*\n\s*/g, ' ');
  return html ? sanitizeHtml(text) : sanitizeText(text);
}

export interface LinkedListQuery {
  search?: string;
  event?: number;
  has_events?: boolean | number | string;
  only_with_upcoming?: boolean | number | string;
  status?: string | string[];
}

export async function linkedFilters(
  db: Executor,
  kind: LinkedKind,
  caller: Caller | undefined,
  q: LinkedListQuery,
  language: string,
): Promise<repo.LinkedFilters> {
  const filters: repo.LinkedFilters = {
    statuses: listStatuses(caller, kind.plural, q.status),
    readable: (query) => whereReadable(query, caller, kind.plural, 'p.status', () => 'p.author_id'),
  };
  if (q.search) filters.search = await prepareSearch(db, kind.type, q.search, language);
  if (q.event !== undefined) {
    if (!(await eventExists(db, q.event))) throw invalidParam('event', 'event_invalid_id');
    filters.event = q.event;
  }
  if (q.has_events !== undefined) filters.hasEvents = isTruthyText(q.has_events);
  if (q.only_with_upcoming !== undefined && isTruthyText(q.only_with_upcoming)) {
    filters.upcoming = {
      from: utcNow(),
      statuses: listStatuses(caller, 'events', undefined),
      readable: (query) => whereReadable(query, caller, 'events', 'le.status', () => 'lp.author_id'),
    };
  }
  return filters;
}
