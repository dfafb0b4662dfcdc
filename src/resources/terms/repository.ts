/** Categories and tags: the only code that reads or writes `terms`. Every function takes the executor to run on. */
import type { Knex } from 'knex';
import type { Executor } from '../../db/types';
import { toNumber, utcNow } from '../../db/dialect';
import { freeSlugIn } from '../slugs';
import { asId } from '../../domain/ids';
import { whereSearchMatches, type SearchQuery } from '../../search/predicate';
import { statement } from '../../db/statements';

export type Taxonomy = 'tribe_events_cat' | 'post_tag';

export interface TermRow {
  id: number;
  taxonomy: Taxonomy;
  name: string;
  slug: string;
  description: string;
  parent: number;
  language: string;
  /** Published events with this term. */
  count: number;
  /** Raised by every update: the term's version (`If-Match`, http/preconditions.ts). */
  version: number;
  /** Raised by every write that changes what the term shows, its count included (core/stamps.ts). */
  stamp: number;
  modified_utc: string;
}

export interface TermFilters {
  /** `search` on names (in the request's language) and slugs. */
  search?: SearchQuery;
  include?: number[];
  exclude?: number[];
  parent?: number;
  post?: number;
  slug?: string;
  hideEmpty: boolean;
  orderBy: TermOrder;
  descending: boolean;
}

export type TermOrder = 'id' | 'name' | 'slug' | 'description' | 'count' | 'parent' | 'include';

function selectTerms(db: Executor, taxonomy: Taxonomy): Knex.QueryBuilder {
  return db('terms as t').where('t.taxonomy', taxonomy).select('t.*');
}

function normalise(row: TermRow): TermRow {
  return {
    ...row,
    id: toNumber(row.id),
    parent: toNumber(row.parent),
    count: toNumber(row.count),
    version: toNumber(row.version),
    stamp: toNumber(row.stamp ?? 0),
  };
}

export async function findTerm(db: Executor, taxonomy: Taxonomy, id: number): Promise<TermRow | undefined> {
  const row = await selectTerms(db, taxonomy).andWhere('t.id', id).first();
  return row && normalise(row);
}

/** Terms of any taxonomy by id (those gone are left out). */
export async function termsByIds(db: Executor, ids: number[]): Promise<TermRow[]> {
  const rows: TermRow[] = ids.length ? await db('terms').whereIn('id', ids).select('*') : [];
  return rows.map(normalise);
}

export async function findTermBySlug(db: Executor, taxonomy: Taxonomy, slug: string): Promise<TermRow | undefined> {
  const row = await selectTerms(db, taxonomy).andWhere('t.slug', slug).first();
  return row && normalise(row);
}

export async function listTerms(
  db: Executor,
  taxonomy: Taxonomy,
  filters: TermFilters,
  limit: number,
  offset: number,
): Promise<{ rows: TermRow[]; total: number }> {
  const filtered = (query: Knex.QueryBuilder) => applyFilters(db, query, filters);
  const [{ total }] = await filtered(db('terms as t').where('t.taxonomy', taxonomy)).count({ total: '*' });
  const rows = await order(filtered(selectTerms(db, taxonomy)), filters)
    .limit(limit)
    .offset(offset);
  return { rows: rows.map(normalise), total: toNumber(total) };
}

function applyFilters(db: Executor, query: Knex.QueryBuilder, f: TermFilters): Knex.QueryBuilder {
  if (f.search) whereSearchMatches(db, query, 't.id', f.search);
  if (f.include) query.whereIn('t.id', f.include);
  if (f.exclude?.length) query.whereNotIn('t.id', f.exclude);
  if (f.parent !== undefined) query.where('t.parent', f.parent);
  if (f.slug !== undefined) query.where('t.slug', f.slug);
  if (f.post !== undefined)
    query.whereExists(db('term_relationships as r').whereRaw('r.term_id = t.id').andWhere('r.post_id', f.post));
  if (f.hideEmpty) query.where('t.count', '>', 0);
  return query;
}

function order(query: Knex.QueryBuilder, f: TermFilters): Knex.QueryBuilder {
  const direction = f.descending ? 'desc' : 'asc';
  if (f.orderBy === 'include' && f.include?.length) {
    const cases = f.include.map((id, index) => `when ${Number(id)} then ${index}`).join(' ');
    return query.orderByRaw(`case t.id ${cases} end ${direction}`).orderBy('t.id', direction);
  }
  if (f.orderBy === 'name' || f.orderBy === 'slug' || f.orderBy === 'description') {
    // case-insensitive, as WordPress's MySQL collation sorts names
    return query.orderByRaw(`lower(??) ${direction}`, [`t.${f.orderBy}`]).orderBy('t.id', direction);
  }
  const column = `t.${f.orderBy === 'include' ? 'id' : f.orderBy}`;
  return query.orderBy(column, direction).orderBy('t.id', direction);
}

/** Existing ids of this taxonomy among `refs` (ids or slugs), and the refs that match nothing. */
export async function resolveTermRefs(
  db: Executor,
  taxonomy: Taxonomy,
  refs: Array<number | string>,
): Promise<{ ids: number[]; unknown: Array<number | string> }> {
  const numeric = refs.map(asId).filter((id): id is number => id !== undefined);
  const slugs = refs.filter((ref) => !/^\d+$/.test(String(ref))).map(String);
  const rows: Array<{ id: number; slug: string }> = refs.length
    ? await db('terms')
        .where('taxonomy', taxonomy)
        .andWhere((q) => {
          q.whereIn('id', numeric).orWhereIn('slug', slugs);
        })
        .select('id', 'slug')
    : [];
  const byId = new Set(rows.map((r) => toNumber(r.id)));
  const bySlug = new Map(rows.map((r) => [r.slug, toNumber(r.id)]));
  const ids: number[] = [];
  const unknown: Array<number | string> = [];
  for (const ref of refs) {
    const asNumber = asId(ref);
    const id = /^\d+$/.test(String(ref))
      ? asNumber !== undefined && byId.has(asNumber)
        ? asNumber
        : undefined
      : bySlug.get(String(ref));
    if (id === undefined) unknown.push(ref);
    else if (!ids.includes(id)) ids.push(id);
  }
  return { ids, unknown };
}

/** A term of this taxonomy whose name equals `name` case-insensitively, under `parent` when given. */
export async function findTermByName(
  db: Executor,
  taxonomy: Taxonomy,
  name: string,
  parent?: number,
): Promise<{ id: number } | undefined> {
  const query = db('terms')
    .where('taxonomy', taxonomy)
    .andWhereRaw('lower(name) = ?', [name.toLowerCase()])
    .select('id');
  if (parent !== undefined) query.andWhere('parent', parent);
  const row = await query.first();
  return row && { id: toNumber(row.id) };
}

/** `base`, or `base-2`, `base-3`… whichever is free in the taxonomy. */
export function freeTermSlug(db: Executor, taxonomy: Taxonomy, base: string): Promise<string> {
  return freeSlugIn(() => db('terms').where('taxonomy', taxonomy), base);
}

export async function parentOf(db: Executor, taxonomy: Taxonomy, id: number): Promise<number | undefined> {
  const row = await db('terms').where({ taxonomy, id }).select('parent').first();
  return row ? toNumber(row.parent) : undefined;
}

export interface TermValues {
  name: string;
  slug: string;
  description: string;
  parent: number;
  language: string;
}

export async function insertTerm(db: Executor, taxonomy: Taxonomy, values: TermValues): Promise<number> {
  const [row] = await db('terms')
    .insert({ taxonomy, ...values, modified_utc: utcNow() })
    .returning('id');
  return toNumber(row.id);
}

export async function updateTerm(
  db: Executor,
  taxonomy: Taxonomy,
  id: number,
  values: Partial<TermValues>,
): Promise<void> {
  // always: a write of translations only is still a new version of the term
  await db('terms')
    .where({ taxonomy, id })
    .update({ ...values, modified_utc: utcNow(), version: db.raw('version + 1') });
}

/** The events a term's deletion changes besides the term: those out of the trash with it. */
export async function dependentsOfTerm(db: Executor, id: number): Promise<{ postIds: number[] }> {
  const posts: Array<{ post_id: unknown }> = await db('term_relationships as r')
    .join('events as e', 'e.post_id', 'r.post_id')
    .where('r.term_id', id)
    .whereNot('e.status', 'trash')
    .select('r.post_id');
  return { postIds: posts.map((row) => toNumber(row.post_id)) };
}

/**
 * Each category's path of slugs from the root down to it (`music/jazz`), as WordPress writes a hierarchical term's
 * link: the ancestors are read a generation at a time.
 */
export async function slugPaths(
  db: Executor,
  taxonomy: Taxonomy,
  rows: Array<Pick<TermRow, 'id' | 'parent' | 'slug'>>,
): Promise<Map<number, string>> {
  const known = new Map(rows.map((row) => [row.id, { parent: row.parent, slug: row.slug }]));
  let wanted = [...new Set(rows.map((row) => row.parent))].filter((id) => id && !known.has(id));
  while (wanted.length) {
    const found: Array<{ id: unknown; parent: unknown; slug: string }> = await db('terms')
      .where({ taxonomy })
      .whereIn('id', wanted)
      .select('id', 'parent', 'slug');
    for (const row of found) known.set(toNumber(row.id), { parent: toNumber(row.parent), slug: row.slug });
    wanted = [...new Set(found.map((row) => toNumber(row.parent)))].filter((id) => id && !known.has(id));
  }
  const pathOf = (id: number, seen: Set<number>): string => {
    const term = known.get(id);
    if (!term || seen.has(id)) return '';
    const above = term.parent ? pathOf(term.parent, seen.add(id)) : '';
    return above ? `${above}/${term.slug}` : term.slug;
  };
  return new Map(rows.map((row) => [row.id, pathOf(row.id, new Set())]));
}

/** Every category below this one, at any depth (their links name its slug). */
export async function descendantsOf(db: Executor, taxonomy: Taxonomy, id: number): Promise<number[]> {
  const found = new Set<number>();
  let parents = [id];
  while (parents.length) {
    const children: Array<{ id: unknown }> = await db('terms')
      .where({ taxonomy })
      .whereIn('parent', parents)
      .select('id');
    parents = children.map((row) => toNumber(row.id)).filter((child) => child !== id && !found.has(child));
    for (const child of parents) found.add(child);
  }
  return [...found];
}

/** Deletes permanently: children move up to the term's parent, links to events go with it (foreign key cascade). */
export async function deleteTerm(
  db: Executor,
  taxonomy: Taxonomy,
  term: Pick<TermRow, 'id' | 'parent'>,
): Promise<void> {
  await db('terms').where({ taxonomy, parent: term.id }).update({ parent: term.parent });
  await db('terms').where({ taxonomy, id: term.id }).delete();
}

const TERMS_OF_POSTS = statement((db, postIds: number[]) =>
  db('term_relationships as r')
    .join('terms as t', 't.id', 'r.term_id')
    .whereIn('r.post_id', postIds)
    .select('r.post_id', 't.*')
    .orderByRaw('lower(t.name), t.id'),
);

/** The categories and tags of each post, with their counts, in one query (embedded in events, ordered by name). */
export async function termsOfPosts(db: Executor, postIds: number[]): Promise<Map<number, TermRow[]>> {
  const byPost = new Map<number, TermRow[]>();
  if (!postIds.length) return byPost;
  const rows = await TERMS_OF_POSTS.all<TermRow & { post_id: number }>(db, postIds);
  for (const row of rows) {
    const postId = toNumber(row.post_id);
    const { post_id: _, ...term } = row;
    byPost.set(postId, [...(byPost.get(postId) ?? []), normalise(term)]);
  }
  return byPost;
}

/**
 * Term ids of the taxonomy whose id, slug or (case-insensitive) name is `ref`, for event writes (docs/compatibility.md
 * §4.4).
 */
export async function findTermForEvent(db: Executor, taxonomy: Taxonomy, ref: string): Promise<number | undefined> {
  const bySlug = await db('terms').where({ taxonomy, slug: ref }).first('id');
  if (bySlug) return toNumber(bySlug.id);
  const byName = await findTermByName(db, taxonomy, ref);
  return byName?.id;
}

/** Every descendant of the given categories, the categories included (the event filter includes child categories). */
export async function withDescendants(db: Executor, taxonomy: Taxonomy, ids: number[]): Promise<number[]> {
  const all = new Set(ids);
  let frontier = ids;
  while (frontier.length) {
    const rows: Array<{ id: number }> = await db('terms').where({ taxonomy }).whereIn('parent', frontier).select('id');
    frontier = rows.map((r) => toNumber(r.id)).filter((id) => !all.has(id));
    for (const id of frontier) all.add(id);
  }
  return [...all];
}

export async function setPostTerms(db: Executor, postId: number, taxonomy: Taxonomy, termIds: number[]): Promise<void> {
  await db('term_relationships')
    .where({ post_id: postId })
    .whereIn('term_id', db('terms').where({ taxonomy }).select('id'))
    .delete();
  if (termIds.length)
    await db('term_relationships').insert([...new Set(termIds)].map((term_id) => ({ post_id: postId, term_id })));
}
