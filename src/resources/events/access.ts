/**
 * Who may see an event (docs/compatibility.md §3.2): finding it by id or slug, the read rule, and the password that
 * protects its description and excerpt.
 */
import type { Executor } from '../../db/types';
import { ApiError, invalidParam } from '../../core/errors';
import { canChange, canRead, type Caller } from '../../users/roles';
import * as posts from '../posts/repository';
import { forbidden, passwordMatches, STATUSES } from '../posts/rules';
import type { ProtectedFields } from '../../search/predicate';
import * as repo from './repository';
import type { EventRow } from './repository';

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

/** The owner and status the capability checks look at. */
export const owned = (row: EventRow) => ({ authorId: row.author_id, status: row.status });

/** Whether the caller sees the protected fields of a password-protected event. */
export function unlocked(row: EventRow, caller: Caller | undefined, password: string | undefined): boolean {
  return !row.password || passwordMatches(password, row.password) || canChange(caller, 'edit', 'events', owned(row));
}

/**
 * Single reads (docs/compatibility.md §3.2): anything unpublished, trash included, needs read rights (its author, or
 * whoever may edit others' events, reads a trashed event with `status: "trash"`); passwords apply.
 */
export function assertReadable(row: EventRow, caller: Caller | undefined, password: string | undefined): void {
  if (!canRead(caller, 'events', owned(row))) throw forbidden('event-not-accessible', 'event_not_accessible');
  if (!unlocked(row, caller, password)) throw forbidden('event-password-protected', 'event_password_protected');
}

/**
 * `unlocked` as SQL, for `search` (D64): not protected, protected by the password sent, or editable by the caller.
 * Undefined when the caller may edit every event.
 */
export function unlockedRule(caller: Caller | undefined, password: string | undefined): ProtectedFields | undefined {
  const editable = (authorId: number | null) =>
    STATUSES.filter((status) => canChange(caller, 'edit', 'events', { authorId, status }));
  const others = editable(null);
  if (others.length === STATUSES.length) return undefined;
  const own = caller ? editable(caller.id) : [];
  return {
    unlocked(q, p) {
      q.where(`${p}.password`, '');
      if (password) q.orWhere(`${p}.password`, password);
      if (others.length) q.orWhereIn(`${p}.status`, others);
      if (caller && own.length) q.orWhere((o) => o.where(`${p}.author_id`, caller.id).whereIn(`${p}.status`, own));
    },
  };
}
