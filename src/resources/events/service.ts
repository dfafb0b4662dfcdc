/**
 * Event reads and writes (tec-compat §2.3, §3, §4.1–4.5, §4.8; DECISIONS.md): who may see and change an event,
 * what a write stores, trash and permanent delete. Every write is one transaction.
 */
import type { Knex } from 'knex';
import type { components } from '../../../generated/schema';
import type { Config, Language } from '../../config';
import type { Db, Executor } from '../../db/knex';
import { lockFor, transactionWithRetry, utcNow } from '../../db/dialect';
import {
  endOfDay,
  formatLocal,
  formatUtc,
  fromLocal,
  normaliseTimezone,
  parseDateInput,
  startOfDay,
} from '../../domain/dates';
import { parseCost } from '../../domain/cost';
import { sanitizeHtml, sanitizeText } from '../../domain/html';
import { makeSlug } from '../../domain/slugs';
import { ApiError, invalidParam } from '../../http/errors';
import { assertPrecondition, type Precondition } from '../../http/preconditions';
import { audit, changes } from '../../audit/audit';
import { canChange, canRead, type Caller } from '../../users/roles';
import { checkedAuthor, checkedUrl } from '../posts/fields';
import { resolveImage } from '../images/images';
import * as posts from '../posts/repository';
import { forbidden, passwordMatches, statusToStore } from '../posts/rules';
import { findTermForEvent, refreshCounts, setPostTerms, termIdsOfPosts } from '../terms/repository';
import { createTermNamed } from '../terms/service';
import { CATEGORIES, TAGS, type TaxonomyInfo } from '../terms/taxonomies';
import { ORGANIZERS, VENUES, type LinkedKind } from '../linked/kinds';
import { createLinkedIn } from '../linked/service';
import { splitPostWrite } from '../translations';
import { isTrue } from '../../http/params';
import { syncSearch } from '../../search/documents';
import { asId } from '../../domain/ids';
import * as series from '../series/service';
import * as repo from './repository';
import type { EventFields, EventRow } from './repository';
import { recordChange } from '../../integrations/outbox';
import type { OnCreated } from '../../http/creates';

export type EventWrite = Partial<components['schemas']['EventWrite']> & { password?: string; slug?: string };
type Recurrence = series.RecurrenceInput | null | undefined;

/** `/events/{id}`: 404 for an unknown id, 400 `rest-invalid-event-id` for a venue's or organizer's id. */
export async function eventById(db: Executor, id: number): Promise<EventRow> {
  const row = await repo.findPostAsEvent(db, id);
  if (!row) throw new ApiError(404, 'rest-event-not-found', 'event_not_found', { id });
  if (row.type !== 'event') throw new ApiError(400, 'rest-invalid-event-id', 'event_invalid_id');
  return row as EventRow;
}

/** `/events/by-slug/{slug}`: an unknown slug is 400 naming `slug` (the plugin's slug validator). */
export async function eventBySlug(db: Executor, slug: string): Promise<EventRow> {
  const post = await posts.findPostBySlug(db, 'event', slug);
  if (!post) throw invalidParam('slug', 'slug_unknown');
  return (await repo.findEvent(db, post.id)) as EventRow;
}

const owned = (row: EventRow) => ({ authorId: row.author_id, status: row.status });

/** Whether the caller sees the protected fields of a password-protected event. */
export function unlocked(row: EventRow, caller: Caller | undefined, password: string | undefined): boolean {
  return !row.password || passwordMatches(password, row.password) || canChange(caller, 'edit', 'events', owned(row));
}

/** Single reads (tec-compat §3.2): trash is gone for everyone, unpublished needs read rights, passwords apply. */
export function assertReadable(row: EventRow, caller: Caller | undefined, password: string | undefined): void {
  if (row.status === 'trash') throw forbidden('event-no-longer-available', 'event_no_longer_available');
  if (!canRead(caller, 'events', owned(row))) throw forbidden('event-not-accessible', 'event_not_accessible');
  if (!unlocked(row, caller, password)) throw forbidden('event-password-protected', 'event_password_protected');
}

/** Creates the event; `created` (the request's hook, http/creates.ts) is told its id inside the transaction. */
export async function createEvent(
  db: Db,
  config: Readonly<Config>,
  caller: Caller,
  body: EventWrite,
  language: Language,
  created?: OnCreated,
): Promise<number> {
  return transactionWithRetry(db, async (trx) => {
    const now = utcNow();
    const write = await prepare(trx, config, caller, body, undefined, language);
    await lockFor(trx, `event-slug:${write.slugBase ?? 'event'}`); // concurrent events of one title: one at a time
    const slug = await posts.freeSlug(trx, 'event', write.slugBase ?? 'event');
    const id = await posts.insertPost(trx, {
      type: 'event',
      language,
      title: '',
      content: '',
      excerpt: '',
      password: '',
      author_id: caller.id,
      date_utc: now,
      modified_utc: now,
      status: 'draft',
      slug,
      ...write.post,
    } as posts.PostValues);
    await repo.insertEvent(trx, id, write.event as EventFields);
    await write.links(trx, id);
    await refreshCounts(trx, await termIdsOfPosts(trx, [id]));
    await syncSearch(trx, 'posts', [id]);
    await series.afterCreate(trx, config, id, body.recurrence as Recurrence);
    await audit(
      trx,
      caller,
      'create',
      'event',
      id,
      changes(undefined, { ...write.post, slug, ...write.event, ...linksSent(body) }),
    );
    await recordChange(trx, 'event', id, 'created');
    await created?.(trx, id);
    return id;
  });
}

/**
 * Updates the fields sent, after the per-event edit check (the by-slug routes resolve the slug first). In a series,
 * `scope` says which occurrences the change is for (`all` writes the series event and regenerates the others).
 * `expect` is the caller's `If-Match`/`If-Unmodified-Since`, checked in the write's transaction. Answers the id of
 * the event written.
 */
export async function updateEvent(
  db: Db,
  config: Readonly<Config>,
  caller: Caller,
  row: EventRow,
  body: EventWrite,
  language: Language,
  scope?: series.Scope,
  expect?: Precondition,
): Promise<number> {
  if (!canChange(caller, 'edit', 'events', owned(row))) throw new ApiError(403, 'rest_forbidden', 'forbidden');
  return transactionWithRetry(db, async (trx) => {
    await assertPrecondition(trx, 'posts', row.id, expect);
    const plan = await series.planFor(trx, row.id, scope);
    const target = plan.kind === 'all' && plan.seriesId !== row.id ? await eventById(trx, plan.seriesId) : row;
    if (target !== row && !canChange(caller, 'edit', 'events', owned(target)))
      throw new ApiError(403, 'rest_forbidden', 'forbidden');
    await series.beforeUpdate(trx, config, plan, body.recurrence as Recurrence);
    await writeUpdate(trx, config, caller, target, body, language);
    await series.afterUpdate(trx, config, plan, target.id, body.recurrence as Recurrence);
    await recordChange(trx, 'event', target.id, 'updated');
    return target.id;
  });
}

async function writeUpdate(
  trx: Knex.Transaction,
  config: Readonly<Config>,
  caller: Caller,
  row: EventRow,
  body: EventWrite,
  language: Language,
): Promise<void> {
  // term counts change only with the event's terms or its status (status, date)
  const countsMayChange = ['categories', 'tags', 'status', 'date', 'date_utc'].some(
    (key) => body[key as keyof EventWrite] !== undefined,
  );
  const termsBefore = countsMayChange ? await termIdsOfPosts(trx, [row.id]) : [];
  const write = await prepare(trx, config, caller, body, row, language);
  if (write.slugBase !== undefined) await lockFor(trx, `event-slug:${write.slugBase}`);
  const slug = write.slugBase === undefined ? undefined : await posts.freeSlug(trx, 'event', write.slugBase, row.id);
  // text in another language than the event's own is stored as its translation
  const own = await splitPostWrite(trx, row.id, row.language, language, write.post);
  await posts.updatePost(trx, row.id, { ...own, ...(slug ? { slug } : {}), modified_utc: utcNow() });
  await repo.updateEvent(trx, row.id, write.event);
  await repo.bumpRevision(trx, row.id);
  await write.links(trx, row.id);
  if (SEARCHED.some((field) => write.post[field] !== undefined)) await syncSearch(trx, 'posts', [row.id]);
  if (countsMayChange) await refreshCounts(trx, [...termsBefore, ...(await termIdsOfPosts(trx, [row.id]))]);
  const written = { ...write.post, ...(slug ? { slug } : {}), ...write.event, ...linksSent(body) };
  await audit(trx, caller, 'update', 'event', row.id, changes(row as unknown as Record<string, unknown>, written));
}

/** Trash by default (410 when already there); `force` deletes permanently, answering the event as it was. */
export async function deleteEvent(
  db: Db,
  caller: Caller,
  row: EventRow,
  force: boolean,
  scope?: series.Scope,
  expect?: Precondition,
): Promise<EventRow> {
  if (!canChange(caller, 'delete', 'events', owned(row))) throw new ApiError(403, 'rest_forbidden', 'forbidden');
  if (!force && row.status === 'trash') throw new ApiError(410, 'event-is-in-trash', 'event_in_trash', { id: row.id });
  await db.transaction(async (trx) => {
    await assertPrecondition(trx, 'posts', row.id, expect);
    await series.deleteScoped(trx, await series.planFor(trx, row.id, scope), force, row.id);
    const terms = await termIdsOfPosts(trx, [row.id]);
    if (force) {
      await posts.deletePost(trx, row.id);
      await syncSearch(trx, 'posts', [row.id]);
    } else {
      await posts.updatePost(trx, row.id, { status: 'trash', modified_utc: utcNow() });
      await repo.updateEvent(trx, row.id, { status: 'trash' });
      await repo.bumpRevision(trx, row.id);
    }
    await audit(trx, caller, force ? 'delete' : 'trash', 'event', row.id, {
      title: { old: row.title },
      status: { old: row.status, new: force ? undefined : 'trash' },
    });
    await refreshCounts(trx, terms);
    await recordChange(trx, 'event', row.id, 'deleted');
  });
  if (force) return row;
  return (await repo.findEvent(db, row.id)) as EventRow;
}

/** The post columns an event's search document is made of. */
const SEARCHED = ['title', 'content', 'excerpt'] as const;

/** The links a write sent (organizers, categories, tags), as sent: recorded in the audit trail as new values. */
function linksSent(body: EventWrite): Record<string, unknown> {
  return { organizer: body.organizer, categories: body.categories, tags: body.tags };
}

interface PreparedWrite {
  post: Partial<posts.PostValues>;
  event: Partial<EventFields>;
  /** Base of the slug to store (made unique by the caller); undefined keeps the current one. */
  slugBase?: string;
  /** Writes terms and organizers once the event id exists. */
  links(trx: Knex.Transaction, id: number): Promise<void>;
}

/** Turns the sent fields into column values, validating each; `current` is the stored event on update. */
async function prepare(
  trx: Knex.Transaction,
  config: Readonly<Config>,
  caller: Caller,
  body: EventWrite,
  current: EventRow | undefined,
  language: Language,
): Promise<PreparedWrite> {
  const post: Partial<posts.PostValues> = {};
  const event: Partial<EventFields> = {};
  const now = utcNow();

  if (body.title !== undefined) post.title = required('title', sanitizeText(body.title));
  if (body.description !== undefined) post.content = required('description', sanitizeHtml(body.description));
  if (body.excerpt !== undefined) post.excerpt = required('excerpt', sanitizeHtml(body.excerpt));
  if (body.password !== undefined) post.password = body.password;
  if (body.author !== undefined) post.author_id = await checkedAuthor(trx, caller, 'events', body.author);

  const zone =
    body.timezone === undefined
      ? (current?.timezone ?? config.siteTimezone)
      : body.timezone === ''
        ? config.siteTimezone
        : normaliseTimezone(body.timezone);
  if (!zone) throw invalidParam('timezone', 'timezone_invalid');
  Object.assign(event, schedule(body, zone, current));

  if (body.date !== undefined) post.date_utc = formatUtc(parsed('date', body.date, zone));
  if (body.date_utc !== undefined) post.date_utc = formatUtc(parsed('date_utc', body.date_utc, 'UTC'));
  if (!current) post.date_utc ??= now;
  if (!current || body.status !== undefined || post.date_utc !== undefined) {
    post.status = statusToStore(
      caller,
      'events',
      body.status,
      current?.status,
      post.date_utc ?? current?.date_utc ?? now,
      now,
    );
    event.status = post.status;
  }

  if (body.cost !== undefined) {
    const cost = parseCost(body.cost);
    const entries = cost.entries.map(sanitizeText).filter(Boolean);
    Object.assign(event, {
      cost: entries.length ? JSON.stringify(entries) : null,
      currency_symbol: cost.symbol,
      currency_position: cost.position,
    });
  }
  if (body.website !== undefined) event.website = checkedUrl('website', body.website);
  if (body.image !== undefined) event.image_id = await resolveImage(trx, body.image, caller);
  for (const flag of ['show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured'] as const) {
    if (body[flag] !== undefined) event[flag] = isTrue(body[flag]);
  }
  if (!current) {
    Object.assign(event, { show_map: event.show_map ?? true, show_map_link: event.show_map_link ?? true });
    Object.assign(event, {
      hide_from_listings: event.hide_from_listings ?? false,
      sticky: event.sticky ?? false,
      featured: event.featured ?? false,
    });
    Object.assign(event, {
      currency_symbol: event.currency_symbol ?? '',
      currency_position: event.currency_position ?? '',
      cost: event.cost ?? null,
    });
    Object.assign(event, { website: event.website ?? null, image_id: event.image_id ?? null, post_parent: null });
  }
  const inline: Inline = { trx, config, caller, language };
  if (body.venue !== undefined) event.venue_id = await venueId(inline, body.venue);
  else if (!current) event.venue_id = null;
  const organizers = body.organizer === undefined ? undefined : await organizerIds(inline, body.organizer);
  const categories = body.categories === undefined ? undefined : await termIds(inline, CATEGORIES, body.categories);
  const tags = body.tags === undefined ? undefined : await termIds(inline, TAGS, body.tags);

  const slugSource = body.slug ?? (current ? undefined : post.title);
  const slugBase = slugSource === undefined ? undefined : makeSlug(slugSource) || undefined;
  if (body.slug !== undefined && !slugBase) throw invalidParam('slug', 'slug_empty');
  return {
    post,
    event,
    slugBase,
    async links(t, id) {
      if (organizers) await repo.setOrganizers(t, id, organizers);
      if (categories) await setPostTerms(t, id, 'tribe_events_cat', categories);
      if (tags) await setPostTerms(t, id, 'post_tag', tags);
    },
  };
}

/**
 * Start, end, time zone and all-day (tec-compat §4.3): dates are read in the event's zone, all-day events span
 * 00:00:00–23:59:59 of their days, an end before the start is 400 naming `end_date`. A new zone keeps the stored
 * local times.
 */
function schedule(body: EventWrite, zone: string, current: EventRow | undefined): Partial<EventFields> | undefined {
  const touched = ['start_date', 'end_date', 'all_day', 'timezone'].some(
    (key) => body[key as keyof EventWrite] !== undefined,
  );
  if (current && !touched) return undefined;
  let start =
    body.start_date !== undefined
      ? parsed('start_date', body.start_date, zone)
      : fromLocal((current as EventRow).start_local, zone);
  let end =
    body.end_date !== undefined
      ? parsed('end_date', body.end_date, zone)
      : fromLocal((current as EventRow).end_local, zone);
  const allDay = body.all_day !== undefined ? isTrue(body.all_day) : (current?.all_day ?? false);
  if (allDay) {
    start = startOfDay(start, zone);
    end = endOfDay(end, zone);
  }
  if (end < start) throw invalidParam('end_date', 'end_before_start');
  return {
    timezone: zone,
    all_day: allDay,
    start_local: formatLocal(start, zone),
    end_local: formatLocal(end, zone),
    start_utc: formatUtc(start),
    end_utc: formatUtc(end),
  };
}

function parsed(name: string, input: string | number, zone: string) {
  const instant = parseDateInput(input, zone);
  if (!instant) throw invalidParam(name, 'date_invalid');
  return instant;
}

function required(name: string, text: string): string {
  if (!text) throw invalidParam(name, 'param_min_length', { limit: 1 });
  return text;
}

type TermInput = components['schemas']['TermRefs'];

/**
 * Terms by id, slug or name, as an array or a comma-separated string (tec-compat §4.4): unknown ids are skipped,
 * unknown names are created (inside the event's transaction, by its caller). `""` and `[]` clear.
 */
async function termIds({ trx, caller, language }: Inline, info: TaxonomyInfo, input: TermInput): Promise<number[]> {
  const { taxonomy } = info;
  const items = (Array.isArray(input) ? input : String(input).split(','))
    .map((item) => String(item).trim())
    .filter(Boolean);
  const ids: number[] = [];
  for (const item of items) {
    if (/^\d+$/.test(item)) {
      const id = asId(item); // a number no term can have is skipped like any unknown id
      if (id !== undefined && (await trx('terms').where({ taxonomy, id }).first('id'))) ids.push(id);
      continue;
    }
    const found = await findTermForEvent(trx, taxonomy, item);
    ids.push(found ?? (await createTermNamed(trx, info, caller, item, language)));
  }
  return ids;
}

type VenueInput = components['schemas']['VenueLink'];
type OrganizerInput = components['schemas']['OrganizerLink'];

/** What creating a term, venue or organizer inline needs: the event's transaction and its caller. */
interface Inline {
  trx: Knex.Transaction;
  config: Readonly<Config>;
  caller: Caller;
  language: Language;
}

/**
 * The venue of an event write (tec-compat §4.6): an existing venue's id (number, numeric string, `{id}`), a new
 * venue's data (created with the venue rules, duplicates reused), or null to unlink (`0`, `""`, `[]`, `null`).
 * Anything invalid is 400 naming `venue`.
 */
async function venueId(inline: Inline, input: VenueInput): Promise<number | null> {
  const [id] = await linkedIds(inline, VENUES, [input]);
  return id ?? null;
}

/** The organizers of an event write, in order: ids and inline data mixed; `0`, `""`, `[]`, `null` unlink. */
async function organizerIds(inline: Inline, input: OrganizerInput): Promise<number[]> {
  return linkedIds(inline, ORGANIZERS, Array.isArray(input) ? input : [input]);
}

async function linkedIds(inline: Inline, kind: LinkedKind, inputs: unknown[]): Promise<number[]> {
  const ids: number[] = [];
  for (const input of inputs) {
    const id = linkedId(input);
    if (id === null) continue;
    if (id !== undefined) ids.push(id);
    else if (isInlineRecord(input, kind)) ids.push(await createInline(inline, kind, input));
    else throw invalidParam(kind.type, `${kind.type}_invalid`);
  }
  const existing = await posts.existingIds(inline.trx, kind.type, ids, { live: true }); // trashed ones cannot be linked
  if (ids.some((id) => !existing.has(id))) throw invalidParam(kind.type, `${kind.type}_invalid`);
  return ids;
}

function isInlineRecord(input: unknown, kind: LinkedKind): input is Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input) && kind.type in input;
}

/** Creates the record inside the event's transaction; its validation errors are reported on the event's parameter. */
async function createInline(inline: Inline, kind: LinkedKind, data: Record<string, unknown>): Promise<number> {
  try {
    return await createLinkedIn(inline.trx, inline.config, kind, inline.caller, data, inline.language);
  } catch (err) {
    if (err instanceof ApiError && err.status === 400) throw invalidParam(kind.type, `${kind.type}_invalid`);
    throw err;
  }
}

/** null: "no link"; undefined: not a reference to an existing record. */
function linkedId(input: unknown): number | null | undefined {
  if (input === null || input === 0 || input === '' || (Array.isArray(input) && input.length === 0)) return null;
  if (typeof input === 'number' || (typeof input === 'string' && /^\d+$/.test(input)))
    return Number(input) === 0 ? null : asId(input);
  if (typeof input === 'object' && !Array.isArray(input) && 'id' in (input as object))
    return asId((input as { id: unknown }).id);
  return undefined;
}
