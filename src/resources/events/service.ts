/**
 * Event writes (docs/compatibility.md §4.1–4.5, §4.8): create, update (with a series scope) and trash or permanent
 * delete, each one write of the kernel (core/write.ts) after the per-event capability check. What a write stores is in
 * `input.ts`, what it links to in `references.ts`, who may see an event in `access.ts`.
 */
import { lockFor, utcNow } from '../../db/dialect';
import { ApiError } from '../../core/errors';
import type { Precondition } from '../../core/preconditions';
import { changes } from '../../core/audit';
import { type OnCreated, type Services, type Write, type Writer, write } from '../../core/write';
import { canChange, type Caller } from '../../users/roles';
import * as posts from '../posts/repository';
import { splitPostWrite } from '../translations';
import * as series from '../series/service';
import { eventById, owned } from './access';
import { type EventWrite, resolveEventWrite } from './input';
import * as repo from './repository';
import { SEARCHED_COLUMNS } from './fields';
import type { EventFields, EventRow } from './repository';

export type { EventWrite } from './input';
type Recurrence = series.RecurrenceInput | null | undefined;

/** Creates the event; `created` (the request's Idempotency-Key hook) is told its id inside the write. */
export function createEvent(
  { db, config }: Services,
  writer: Writer,
  body: EventWrite,
  created?: OnCreated,
): Promise<number> {
  return write(db, async (w) => {
    const now = utcNow();
    const input = await resolveEventWrite(w, config, writer, body, undefined);
    await lockFor(w.trx, `event-slug:${input.slugBase ?? 'event'}`); // concurrent events of one title: one at a time
    const slug = await posts.freeSlug(w.trx, 'event', input.slugBase ?? 'event');
    const id = await posts.insertPost(w.trx, {
      type: 'event',
      language: writer.language,
      title: '',
      content: '',
      excerpt: '',
      password: '',
      author_id: writer.caller.id,
      date_utc: now,
      modified_utc: now,
      status: 'draft',
      slug,
      ...input.post,
    } as posts.PostValues);
    await repo.insertEvent(w.trx, id, input.event as EventFields);
    await w.countTermsOf([id], { made: true });
    await input.links(w.trx, id);
    w.search('posts', [id], { made: true });
    await series.afterCreate(w, config, id, body.recurrence as Recurrence);
    w.audit(
      writer.caller,
      'create',
      'event',
      id,
      changes(undefined, { ...input.post, slug, ...input.event, ...linksSent(body) }),
    );
    w.change('event', id, 'created');
    await created?.(w.trx, id);
    return id;
  });
}

/** How an update or delete applies: its series scope, and the caller's `If-Match` / `If-Unmodified-Since`. */
export interface WriteScope {
  scope?: series.Scope;
  expect?: Precondition;
}

/**
 * Updates the fields sent, after the per-event edit check (the by-slug routes resolve the slug first). In a series,
 * `scope` says which occurrences the change is for (`all` writes the series event and regenerates the others).
 * Answers the id of the event written.
 */
export async function updateEvent(
  { db, config }: Services,
  writer: Writer,
  row: EventRow,
  body: EventWrite,
  { scope, expect }: WriteScope = {},
): Promise<number> {
  assertMayChange(writer.caller, 'edit', row);
  const guarded = { table: 'posts', id: row.id, expect } as const;
  return write(
    db,
    async (w) => {
      const plan = await series.planFor(w.trx, row.id, scope);
      const target = plan.kind === 'all' && plan.seriesId !== row.id ? await eventById(w.trx, plan.seriesId) : row;
      if (target !== row) assertMayChange(writer.caller, 'edit', target);
      await series.beforeUpdate(w, config, plan, body.recurrence as Recurrence);
      await writeUpdate(w, { db, config }, writer, target, body);
      await series.afterUpdate(w, config, plan, target.id, body.recurrence as Recurrence);
      w.change('event', target.id, 'updated');
      return target.id;
    },
    { precondition: guarded },
  );
}

/** Term counts change only with the event's terms or its status (status, date). */
const COUNTED = ['categories', 'tags', 'status', 'date', 'date_utc'] as const;

async function writeUpdate(w: Write, { config }: Services, writer: Writer, row: EventRow, body: EventWrite) {
  if (COUNTED.some((key) => body[key] !== undefined)) await w.countTermsOf([row.id]);
  const input = await resolveEventWrite(w, config, writer, body, row);
  if (input.slugBase !== undefined) await lockFor(w.trx, `event-slug:${input.slugBase}`);
  const slug = input.slugBase === undefined ? undefined : await posts.freeSlug(w.trx, 'event', input.slugBase, row.id);
  // text in another language than the event's own is stored as its translation
  const own = await splitPostWrite(w.trx, row.id, row.language, writer.language, input.post);
  const ownEvent = await splitPostWrite(w.trx, row.id, row.language, writer.language, input.event);
  await posts.updatePost(w.trx, row.id, { ...own, ...(slug ? { slug } : {}), modified_utc: utcNow() });
  await repo.updateEvent(w.trx, row.id, ownEvent);
  await repo.bumpRevision(w.trx, row.id);
  await input.links(w.trx, row.id);
  const sent: Record<string, unknown> = { ...input.post, ...input.event };
  if (SEARCHED_COLUMNS.some((column) => sent[column] !== undefined)) w.search('posts', [row.id]);
  const written = { ...input.post, ...(slug ? { slug } : {}), ...input.event, ...linksSent(body) };
  w.audit(writer.caller, 'update', 'event', row.id, changes(row as unknown as Record<string, unknown>, written));
}

/** Trash by default (410 when already there); `force` deletes permanently, answering the event as it was. */
export async function deleteEvent(
  { db }: Pick<Services, 'db'>,
  caller: Caller,
  row: EventRow,
  { force = false, scope, expect }: WriteScope & { force?: boolean },
): Promise<EventRow> {
  assertMayChange(caller, 'delete', row);
  if (!force && row.status === 'trash') throw new ApiError(410, 'event-is-in-trash', 'event_in_trash', { id: row.id });
  const guarded = { table: 'posts', id: row.id, expect } as const;
  await write(
    db,
    async (w) => {
      await series.deleteScoped(w, await series.planFor(w.trx, row.id, scope), force, row.id);
      await w.countTermsOf([row.id]);
      if (force) {
        await posts.deletePost(w.trx, row.id);
        w.search('posts', [row.id]);
      } else {
        await posts.updatePost(w.trx, row.id, { status: 'trash', modified_utc: utcNow() });
        await repo.updateEvent(w.trx, row.id, { status: 'trash' });
        await repo.bumpRevision(w.trx, row.id);
      }
      w.audit(caller, force ? 'delete' : 'trash', 'event', row.id, {
        title: { old: row.title },
        status: { old: row.status, new: force ? undefined : 'trash' },
      });
      w.change('event', row.id, 'deleted');
    },
    { precondition: guarded },
  );
  if (force) return row;
  return (await repo.findEvent(db, row.id)) as EventRow;
}

function assertMayChange(caller: Caller, action: 'edit' | 'delete', row: EventRow): void {
  if (!canChange(caller, action, 'events', owned(row))) throw new ApiError(403, 'rest_forbidden', 'forbidden');
}

/** The links a write sent (organizers, categories, tags), as sent: recorded in the audit trail as new values. */
function linksSent(body: EventWrite): Record<string, unknown> {
  return { organizer: body.organizer, categories: body.categories, tags: body.tags };
}
