/** Venue and organizer rows: their own table's writes, the duplicate look-up, unlinking, and the list query. */
import type { Knex } from 'knex';
import type { Executor } from '../../db/types';
import { toNumber } from '../../db/dialect';
import { whereSearchMatches, type SearchQuery } from '../../search/predicate';
import { listTotal } from '../../db/counts';
import type { LinkedKind, LinkedRow } from './kinds';

export async function insertDetails(
  db: Executor,
  kind: LinkedKind,
  postId: number,
  values: Record<string, unknown>,
): Promise<void> {
  await db(kind.table).insert({ post_id: postId, ...values });
}

export async function updateDetails(
  db: Executor,
  kind: LinkedKind,
  postId: number,
  values: Record<string, unknown>,
): Promise<void> {
  if (Object.keys(values).length) await db(kind.table).where({ post_id: postId }).update(values);
}

/**
 * The record a create reuses (docs/compatibility.md §4.7): the same name and the same value of every duplicate field
 * sent (`match`: `p.` or `d.` column → cleaned text), compared case-insensitively as the plugin's MySQL collation does;
 * trashed records are not reused, nor those `readable` (the writer's read rule on `p`) leaves out.
 */
export async function findDuplicate(
  db: Executor,
  kind: LinkedKind,
  name: string,
  match: Record<string, string>,
  readable: (query: Knex.QueryBuilder) => void,
): Promise<number | undefined> {
  const query = db('posts as p')
    .join(`${kind.table} as d`, 'd.post_id', 'p.id')
    .where('p.type', kind.type)
    .whereNot('p.status', 'trash')
    .andWhereRaw('lower(p.title) = ?', [name.toLowerCase()])
    .orderBy('p.id')
    .first('p.id');
  for (const [column, value] of Object.entries(match))
    query.andWhereRaw('lower(??) = ?', [column, value.toLowerCase()]);
  readable(query);
  const row = await query;
  return row ? toNumber(row.id) : undefined;
}

/** The events out of the trash a venue or organizer is linked to (their records embed it). */
export async function linkedEventIds(db: Executor, kind: LinkedKind, id: number): Promise<number[]> {
  const rows: Array<{ id: unknown }> =
    'table' in kind.eventLink
      ? await db(`${kind.eventLink.table} as l`)
          .join('events as e', 'e.post_id', 'l.event_id')
          .where({ [`l.${kind.eventLink.column}`]: id })
          .whereNot('e.status', 'trash')
          .select('l.event_id as id')
      : await db('events').where({ venue_id: id }).whereNot('status', 'trash').select('post_id as id');
  return rows.map((row) => toNumber(row.id));
}

/** Trashing or deleting a venue or organizer unlinks it from its events. */
export async function unlinkFromEvents(db: Executor, kind: LinkedKind, id: number): Promise<void> {
  if ('table' in kind.eventLink)
    await db(kind.eventLink.table)
      .where({ [kind.eventLink.column]: id })
      .delete();
  else await db('events').where({ venue_id: id }).update({ venue_id: null });
}

export interface LinkedFilters {
  statuses: string[];
  readable?: (query: Knex.QueryBuilder) => Knex.QueryBuilder;
  /** `search`, in the request's language. */
  search?: SearchQuery;
  /** Linked to this event. */
  event?: number;
  /** true: linked to an event that is not a draft or pending; false: to none such. */
  hasEvents?: boolean;
  /** Linked to an event starting at or after this UTC time, among the events the caller may read. */
  upcoming?: { from: string; statuses: string[]; readable?: (query: Knex.QueryBuilder) => Knex.QueryBuilder };
}

export async function listLinked(
  db: Executor,
  kind: LinkedKind,
  f: LinkedFilters,
  limit: number,
  offset: number,
): Promise<{ ids: number[]; total: number }> {
  const { page, count } = linkedListQueries(db, kind, f);
  const rows: Array<{ id: number }> = await page().limit(limit).offset(offset);
  return { ids: rows.map((r) => toNumber(r.id)), total: await listTotal(db, rows.length, limit, offset, count) };
}

/**
 * The two queries of `GET /venues` and `GET /organizers`: ids newest first, and their count (exported for plan tests).
 */
export function linkedListQueries(
  db: Executor,
  kind: LinkedKind,
  f: LinkedFilters,
): { page: () => Knex.QueryBuilder; count: () => Knex.QueryBuilder } {
  const filtered = () => applyFilters(db, kind, db('posts as p').join(`${kind.table} as d`, 'd.post_id', 'p.id'), f);
  return {
    page: () => filtered().select('p.id').orderBy('p.date_utc', 'desc').orderBy('p.id', 'desc'),
    count: () => filtered().count({ total: '*' }),
  };
}

/** Events linked to the record in `p`, as a sub-query on `events as le`. */
function linkedEvents(db: Executor, kind: LinkedKind): Knex.QueryBuilder {
  const link = kind.eventLink;
  return 'table' in link
    ? db(`${link.table} as l`).join('events as le', 'le.post_id', 'l.event_id').whereRaw(`l.${link.column} = p.id`)
    : db('events as le').whereRaw('le.venue_id = p.id');
}

function applyFilters(db: Executor, kind: LinkedKind, q: Knex.QueryBuilder, f: LinkedFilters): Knex.QueryBuilder {
  q.where('p.type', kind.type).whereIn('p.status', f.statuses);
  if (f.readable) f.readable(q);
  if (f.search) whereSearchMatches(db, q, 'p.id', f.search);
  if (f.event !== undefined) q.whereExists(linkedEvents(db, kind).where('le.post_id', f.event));
  if (f.hasEvents !== undefined) {
    const live = linkedEvents(db, kind).whereNotIn('le.status', ['draft', 'pending', 'trash']);
    if (f.hasEvents) q.whereExists(live);
    else q.whereNotExists(live);
  }
  if (f.upcoming) {
    const { from, statuses, readable } = f.upcoming;
    const upcoming = linkedEvents(db, kind).where('le.start_utc', '>=', from).whereIn('le.status', statuses);
    if (readable) readable(upcoming.join('posts as lp', 'lp.id', 'le.post_id'));
    q.whereExists(upcoming);
  }
  return q;
}

export type { LinkedRow };
