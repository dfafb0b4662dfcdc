/**
 * The rules of category and tag writes and lists (docs/compatibility.md §4.10, §5.3): names unique per level, slugs
 * unique per taxonomy, parents that exist and make no cycle, permanent deletes. Each write is one write of the kernel.
 */
import type { Knex } from 'knex';
import type { components, operations } from '../../../generated/schema';
import type { Db, Executor } from '../../db/types';
import type { ListSource } from '../../core/lists';
import { lockFor } from '../../db/dialect';
import { ApiError, invalidParam } from '../../core/errors';
import type { Precondition } from '../../core/preconditions';
import { changes as diff } from '../../core/audit';
import { type OnCreated, type Services, type Write, type Writer, write } from '../../core/write';
import type { Caller } from '../../users/roles';
import { sanitizeHtml, sanitizeText } from '../../domain/html';
import { isTrue } from '../../core/flags';
import { makeSlug } from '../../domain/slugs';
import * as repo from './repository';
import { eventExists } from '../posts/repository';
import type { TermFilters, TermOrder, TermRow } from './repository';
import type { TaxonomyInfo } from './taxonomies';
import { splitTermWrite } from '../translations';
import { prepareSearch } from '../../search/predicate';

type TermWrite = Omit<components['schemas']['CategoryWrite'], 'parent'> & { parent?: number | string };
export type TermListQuery = NonNullable<operations['listCategories']['parameters']['query']>;

/** 400 `rest_invalid_param` naming `id` for an id that is not a term of this taxonomy (as the plugin). */
export async function getTerm(db: Executor, info: TaxonomyInfo, id: number): Promise<TermRow> {
  const term = await repo.findTerm(db, info.taxonomy, id);
  if (!term) throw invalidParam('id', 'term_invalid_id');
  return term;
}

/** `GET /categories` and `GET /tags` as lists of the kernel's pipeline (core/lists.ts). */
export function termList(info: TaxonomyInfo): ListSource<TermListQuery, TermFilters, TermRow> {
  return {
    filters: ({ db, language }, query) => filters(db, info, query, language),
    page: ({ db }, found, { limit, offset }) => repo.listTerms(db, info.taxonomy, found, limit, offset),
  };
}

const ORDERS: Record<string, TermOrder> = {
  id: 'id',
  name: 'name',
  slug: 'slug',
  description: 'description',
  count: 'count',
  parent: 'parent',
  include: 'include',
  include_slugs: 'include',
  term_group: 'id',
  none: 'id',
};

async function filters(db: Executor, info: TaxonomyInfo, query: TermListQuery, language: string): Promise<TermFilters> {
  const known = async (name: 'include' | 'exclude', refs?: Array<number | string>) => {
    if (!refs) return undefined;
    const { ids, unknown } = await repo.resolveTermRefs(db, info.taxonomy, refs);
    if (unknown.length) throw invalidParam(name, 'term_invalid_id');
    return ids;
  };
  const post = query.event ?? query.post;
  if (post !== undefined && !(await eventExists(db, post)))
    throw invalidParam(query.event !== undefined ? 'event' : 'post', 'event_invalid_id');
  const parent = info.hierarchical ? query.parent : undefined; // tags declare no parent filter
  if (parent !== undefined && !(await repo.findTerm(db, info.taxonomy, parent)))
    throw invalidParam('parent', 'term_parent_invalid');
  return {
    search: query.search ? await prepareSearch(db, 'term', query.search, language) : undefined,
    include: await known('include', query.include),
    exclude: await known('exclude', query.exclude),
    parent,
    post,
    slug: query.slug,
    hideEmpty: isTrue(query.hide_empty ?? true),
    orderBy: ORDERS[(query.orderby ?? 'name').toLowerCase()] ?? 'name',
    descending: (query.order ?? 'asc').toLowerCase() !== 'asc',
  };
}

/** Creates the term; `created` (the request's Idempotency-Key hook) is told its id inside the write. */
export function createTerm(
  { db }: Pick<Services, 'db'>,
  info: TaxonomyInfo,
  { caller, language }: Writer,
  body: TermWrite,
  created?: OnCreated,
): Promise<TermRow> {
  return write(db, async (w) => {
    const { trx } = w;
    const name = requiredName(body.name ?? '');
    await lockFor(trx, `terms:${info.taxonomy}`); // the name check and the insert, one writer at a time
    const parent = await checkedParent(trx, info, body.parent, undefined);
    const level = info.hierarchical ? (parent ?? 0) : undefined;
    const duplicate = await repo.findTermByName(trx, info.taxonomy, name, level);
    const askedSlug = body.slug === undefined ? undefined : slugFrom(body.slug);
    const askedSlugTaken =
      askedSlug !== undefined && (await repo.findTermBySlug(trx, info.taxonomy, askedSlug)) !== undefined;
    if (duplicate && (askedSlug === undefined || askedSlugTaken)) {
      throw new ApiError(400, 'term_exists', 'term_exists', {}, { term_id: duplicate.id });
    }
    const slug = await freeSlug(trx, info, askedSlug ?? slugFrom(name));
    const description = body.description === undefined ? '' : sanitizeHtml(body.description);
    const values = { name, slug, description, parent: parent ?? 0, language };
    const id = await repo.insertTerm(trx, info.taxonomy, values);
    w.search('terms', [id], { made: true });
    w.audit(caller, 'create', info.kind, id, diff(undefined, values));
    w.change(info.kind, id, 'created');
    await created?.(trx, id);
    return getTerm(trx, info, id);
  });
}

/** Updates the fields sent; an id that is not a term of this taxonomy is 400 before any precondition. */
export async function updateTerm(
  { db }: Pick<Services, 'db'>,
  info: TaxonomyInfo,
  { caller, language }: Writer,
  id: number,
  body: TermWrite,
  expect?: Precondition,
): Promise<TermRow> {
  return writeExisting(db, info, id, expect, async (w, current) => {
    const { trx } = w;
    const changes: Partial<repo.TermValues> = {};
    const foreign = current.language !== language; // its name in another language is a translation, not its name
    const parent = await checkedParent(trx, info, body.parent, id);
    if (parent !== undefined) changes.parent = parent;
    if (body.name !== undefined) {
      changes.name = requiredName(body.name);
      const level = info.hierarchical ? (parent ?? current.parent) : undefined;
      const duplicate = foreign ? undefined : await repo.findTermByName(trx, info.taxonomy, changes.name, level);
      if (duplicate && duplicate.id !== id)
        throw new ApiError(400, 'term_exists', 'term_exists', {}, { term_id: duplicate.id });
    }
    if (body.slug !== undefined) {
      changes.slug = slugFrom(body.slug);
      const owner = await repo.findTermBySlug(trx, info.taxonomy, changes.slug);
      if (owner && owner.id !== id)
        throw new ApiError(400, 'term_exists', 'term_slug_exists', { slug: changes.slug }, { term_id: owner.id });
    }
    if (body.description !== undefined) changes.description = sanitizeHtml(body.description);
    const own = await splitTermWrite(trx, id, current.language, language, changes);
    await repo.updateTerm(trx, info.taxonomy, id, own);
    if (changes.name !== undefined || changes.slug !== undefined) w.search('terms', [id]);
    // the links of the categories below name its slug, and move with it
    if (info.hierarchical && (changes.slug !== undefined || changes.parent !== undefined))
      w.change(info.kind, await repo.descendantsOf(trx, info.taxonomy, id), 'updated');
    w.audit(caller, 'update', info.kind, id, diff(current as unknown as Record<string, unknown>, changes));
    w.change(info.kind, id, 'updated');
    return getTerm(trx, info, id);
  });
}

/** Answers the term as it was before deletion (with its old count). */
export async function deleteTerm(
  { db }: Pick<Services, 'db'>,
  info: TaxonomyInfo,
  caller: Caller,
  id: number,
  expect?: Precondition,
): Promise<TermRow> {
  return writeExisting(db, info, id, expect, async (w, term) => {
    const dependents = await repo.dependentsOfTerm(w.trx, id);
    const below = await repo.descendantsOf(w.trx, info.taxonomy, id); // their links name it
    await repo.deleteTerm(w.trx, info.taxonomy, term);
    w.search('terms', [id]);
    w.audit(caller, 'delete', info.kind, id, { name: { old: term.name }, slug: { old: term.slug } });
    // the events that carried it and its children (moved up) read differently now
    w.change('event', dependents.postIds, 'updated');
    w.change(info.kind, below, 'updated');
    w.change(info.kind, id, 'deleted');
    return term;
  });
}

/**
 * A write of an existing term: 400 before any precondition for an id that is not a term of this taxonomy, then the
 * precondition on its locked row, then `work` with the term as the transaction reads it.
 */
async function writeExisting<T>(
  db: Db,
  info: TaxonomyInfo,
  id: number,
  expect: Precondition | undefined,
  work: (w: Write, current: TermRow) => Promise<T>,
): Promise<T> {
  await getTerm(db, info, id);
  return write(db, async (w) => work(w, await getTerm(w.trx, info, id)), {
    precondition: { table: 'terms', id, expect },
  });
}

function requiredName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw invalidParam('name', 'term_name_empty');
  return trimmed;
}

function slugFrom(text: string): string {
  const slug = makeSlug(text);
  if (!slug) throw invalidParam('slug', 'slug_empty');
  return slug;
}

/**
 * A new top-level term named `name` (events create terms by name, docs/compatibility.md §4.4), in the event write's
 * transaction, audited as a create of its own by the event's writer.
 */
export async function createTermNamed(
  w: Write,
  info: TaxonomyInfo,
  { caller, language }: Writer,
  name: string,
): Promise<number> {
  const { trx } = w;
  await lockFor(trx, `terms:${info.taxonomy}`);
  const existing = await repo.findTermForEvent(trx, info.taxonomy, name); // created by a concurrent writer meanwhile
  if (existing !== undefined) return existing;
  const slug = await freeSlug(trx, info, makeSlug(name) || 'term');
  const values = { name: sanitizeText(name), slug, description: '', parent: 0, language };
  const id = await repo.insertTerm(trx, info.taxonomy, values);
  w.search('terms', [id]);
  w.audit(caller, 'create', info.kind, id, diff(undefined, values));
  w.change(info.kind, id, 'created');
  return id;
}

function freeSlug(trx: Knex.Transaction, info: TaxonomyInfo, base: string): Promise<string> {
  return repo.freeTermSlug(trx, info.taxonomy, base);
}

/**
 * The parent to store, or undefined when none was sent. Tags have none (400 `rest_taxonomy_not_hierarchical`);
 * a category's parent must exist (400 `rest_term_invalid`) and, on update, not be the category or a descendant.
 * `0` moves a category to the top level on update.
 */
async function checkedParent(
  trx: Executor,
  info: TaxonomyInfo,
  parent: number | string | undefined,
  self: number | undefined,
): Promise<number | undefined> {
  if (parent === undefined) return undefined;
  if (!info.hierarchical) throw new ApiError(400, 'rest_taxonomy_not_hierarchical', 'term_not_hierarchical');
  const id = Number(parent);
  if (id === 0 && self !== undefined) return 0;
  if (!(await repo.findTerm(trx, info.taxonomy, id)))
    throw new ApiError(400, 'rest_term_invalid', 'term_parent_invalid');
  for (
    let ancestor: number | undefined = id;
    self !== undefined && ancestor;
    ancestor = await repo.parentOf(trx, info.taxonomy, ancestor)
  ) {
    if (ancestor === self) throw invalidParam('parent', 'term_parent_cycle');
  }
  return id;
}
