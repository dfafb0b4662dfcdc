/**
 * Rules shared by events, venues and organizers: which status a write stores (docs/compatibility.md §4.2), which
 * statuses a list may ask for and which items it shows (§3.3, docs/decisions.md D8: per-item read permission), and
 * passwords (§3.4).
 */
import { timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { ApiError, invalidParam } from '../../core/errors';
import type { MessageKey } from '../../i18n/messages';
import { can, canRead, type Caller, type PostTypePlural } from '../../users/roles';

export const WRITABLE_STATUSES = ['publish', 'future', 'draft', 'pending', 'private'] as const;
export const STATUSES = [...WRITABLE_STATUSES, 'trash'] as const;
export type Status = (typeof STATUSES)[number];

/**
 * The status a write stores: callers who cannot publish get `pending` for `publish`/`future` and `draft` by default;
 * then, as WordPress does, `publish` with a future publication date becomes `future` and `future` with a past one
 * `publish`.
 */
export function statusToStore(
  caller: Caller,
  type: PostTypePlural,
  requested: string | undefined,
  current: string | undefined,
  publishedUtc: string,
  nowUtc: string,
): Status {
  const mayPublish = can(caller, `publish_${type}`);
  let status = (requested ?? current ?? (mayPublish ? 'publish' : 'draft')) as Status;
  if (requested !== undefined && !mayPublish && (status === 'publish' || status === 'future')) status = 'pending';
  if (status === 'publish' && publishedUtc > nowUtc) return 'future';
  if (status === 'future' && publishedUtc <= nowUtc) return 'publish';
  return status;
}

/**
 * The statuses a list covers. Without `status`: every non-trash status for callers who may edit the type, `publish`
 * for others. With it (one status, a comma-separated list, an array, or an array of such lists; docs/compatibility.md
 * §3.3): others may only ask for `publish`, once; editors for any known status. Unknown or forbidden values are 400
 * naming `status`.
 */
export function listStatuses(
  caller: Caller | undefined,
  type: PostTypePlural,
  param: string | string[] | undefined,
): Status[] {
  const privileged = can(caller, `edit_${type}`);
  if (param === undefined) return privileged ? [...WRITABLE_STATUSES] : ['publish'];
  const sent = (Array.isArray(param) ? param : [param]).flatMap((item) => item.split(',')).map((s) => s.trim());
  const asked = [...new Set(sent.filter(Boolean))];
  const ok =
    asked.length > 0 &&
    asked.every((s) => (STATUSES as readonly string[]).includes(s)) &&
    (privileged || (sent.length === 1 && asked[0] === 'publish'));
  if (!ok) throw invalidParam('status', 'status_invalid');
  return asked as Status[];
}

/**
 * Restricts a list to the items the caller may read: everything for editors; published items plus their own
 * readable ones for authors and contributors; published items for everyone else. Expects `status_column` and
 * `author_column` to name the columns in the query.
 */
export function whereReadable(
  query: Knex.QueryBuilder,
  caller: Caller | undefined,
  type: PostTypePlural,
  statusColumn: string,
  authorColumn: () => string,
): Knex.QueryBuilder {
  if (can(caller, `edit_others_${type}`) && can(caller, `read_private_${type}`)) return query;
  if (!caller || !can(caller, `edit_${type}`)) return query.where(statusColumn, 'publish');
  const own = STATUSES.filter((status) => canRead(caller, type, { authorId: caller.id, status }));
  return query.where((q) => {
    q.where(statusColumn, 'publish').orWhere((o) => {
      o.where(authorColumn(), caller.id).whereIn(statusColumn, own);
    });
  });
}

/**
 * Restricts a query of venues or organizers (their posts at `posts`) to those the caller may read, trashed ones left
 * out for everyone: what an event embeds (docs/decisions.md D63), and so what its filters match through.
 */
export function whereLinkedReadable(
  query: Knex.QueryBuilder,
  caller: Caller | undefined,
  type: 'venues' | 'organizers',
  posts: string,
): Knex.QueryBuilder {
  query.whereNot(`${posts}.status`, 'trash');
  return whereReadable(query, caller, type, `${posts}.status`, () => `${posts}.author_id`);
}

/** Constant-time comparison of a sent password with the record's (which is non-empty). */
export function passwordMatches(sent: string | undefined, stored: string): boolean {
  if (sent === undefined) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(stored);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function forbidden(code: string, key: MessageKey): ApiError {
  return new ApiError(403, code, key);
}
