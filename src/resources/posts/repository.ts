/** Rows of `posts`, the record every event, venue and organizer shares (one id sequence, as WordPress's posts). */
import type { Executor } from '../../db/types';
import { toNumber } from '../../db/dialect';
import { forShare } from '../../db/dialects/locks';
import type { KindIn } from '../../kinds/registry';
import { freeSlugIn } from '../slugs';

/** The record kinds stored as posts (src/kinds/). */
export type PostType = KindIn<'posts'>;

export interface PostRow {
  id: number;
  type: PostType;
  status: string;
  author_id: number | null;
  slug: string;
  language: string;
  title: string;
  content: string;
  excerpt: string;
  password: string;
  date_utc: string;
  modified_utc: string;
  /** Raised by every update: the record's version (`If-Match`, http/preconditions.ts). */
  version: number;
  /** Raised by every write that changes what the record shows (core/stamps.ts). */
  stamp: number;
}

export type PostValues = Omit<PostRow, 'id' | 'version' | 'stamp'>;

export function normalisePost<T extends PostRow>(row: T): T {
  return {
    ...row,
    id: toNumber(row.id),
    version: toNumber(row.version),
    stamp: toNumber(row.stamp ?? 0),
    author_id: row.author_id === null ? null : toNumber(row.author_id),
  };
}

export async function findPostBySlug(db: Executor, type: PostType, slug: string): Promise<PostRow | undefined> {
  const row = await db<PostRow>('posts').where({ type, slug }).first();
  return row && normalisePost(row);
}

/**
 * The ids among `ids` that are posts of `type`. With `live`, only those not in the trash, and (inside a PostgreSQL
 * transaction) share-locked until it ends, so that a concurrent trash waits for the link, or the link sees the trash.
 */
export async function existingIds(
  db: Executor,
  type: PostType,
  ids: number[],
  { live = false } = {},
): Promise<Set<number>> {
  return new Set((await ownersOf(db, type, ids, { live })).keys());
}

/** Like `existingIds`, with each post's author and status (what the read and edit rules look at). */
export async function ownersOf(
  db: Executor,
  type: PostType,
  ids: number[],
  { live = false } = {},
): Promise<Map<number, { authorId: number | null; status: string }>> {
  if (!ids.length) return new Map();
  const query = db('posts').where({ type }).whereIn('id', ids).select('id', 'author_id', 'status');
  if (live) {
    query.whereNot('status', 'trash');
    forShare(db, query);
  }
  const rows: Array<{ id: number; author_id: number | null; status: string }> = await query;
  return new Map(
    rows.map((r) => [
      toNumber(r.id),
      { authorId: r.author_id === null ? null : toNumber(r.author_id), status: r.status },
    ]),
  );
}

export async function insertPost(db: Executor, values: PostValues): Promise<number> {
  const [row] = await db('posts').insert(values).returning('id');
  return toNumber(row.id);
}

export async function updatePost(db: Executor, id: number, values: Partial<PostValues>): Promise<void> {
  if (Object.keys(values).length)
    await db('posts')
      .where({ id })
      .update({ ...values, version: db.raw('version + 1') });
}

export async function deletePost(db: Executor, id: number): Promise<void> {
  await db('posts').where({ id }).delete();
}

/**
 * `base`, or `base-2`, `base-3`… (at most 200 characters) whichever is free among the posts of `type` (other than
 * `self`).
 */
export async function freeSlug(db: Executor, type: PostType, base: string, self?: number): Promise<string> {
  return freeSlugIn(() => {
    const query = db('posts').where({ type });
    return self === undefined ? query : query.andWhereNot('id', self);
  }, base);
}

/** Whether `id` is an event (list filters that name an event: `post`, `event`, `post_parent`). */
export async function eventExists(db: Executor, id: number): Promise<boolean> {
  return Boolean(await db('posts').where({ id, type: 'event' }).first('id'));
}
