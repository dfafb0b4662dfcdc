/**
 * The search documents: one `search_docs` row per record and language, holding the normalised text of the fields
 * `search` looks in (docs/compatibility.md §5.1–5.3) in columns `f0`…`f9`. A record has a row for its original language
 * (`is_original = 1`) and one for each language it has a translation in, whose fields fall back one by one to the
 * original text, as reads do. Rows are rebuilt from the records by `syncSearch`, in the writer's transaction; on
 * SQLite triggers keep the FTS5 index (`search_fts`) in step with the table.
 */
import type { Knex } from 'knex';
import type { Executor } from '../db/types';
import { toNumber } from '../db/dialect';
import type { Declared } from '../kinds/registry';
import { POST_KINDS } from '../kinds/fields/kinds';
import { searchColumns } from '../kinds/fields/table';
import { indexedText } from './normalise';

/** The record kinds' search kinds (src/kinds/): categories and tags are both `term`. */
export type SearchKind = NonNullable<Declared<'searchKind'>>;

const postKinds = Object.values(POST_KINDS);

/** The fields each kind of record is searched in, in column order (`f0`, `f1`, …): the post kinds' field tables. */
export const SEARCH_FIELDS: Record<SearchKind, readonly string[]> = {
  event: searchColumns(POST_KINDS.event.fields),
  venue: searchColumns(POST_KINDS.venue.fields),
  organizer: searchColumns(POST_KINDS.organizer.fields),
  term: ['name', 'slug'],
};

/**
 * Fields only some callers may read (a password-protected event's excerpt and description): a search by a caller
 * who may not read them matches the record on its other fields only (D64).
 */
export const PROTECTED_FIELDS: Partial<Record<SearchKind, readonly string[]>> = Object.fromEntries(
  Object.entries(POST_KINDS).flatMap(([kind, { fields }]) => {
    const hidden = searchColumns(fields).filter((column) => fields[column].protected);
    return hidden.length ? [[kind, hidden]] : [];
  }),
);

export const SEARCH_COLUMNS = ['f0', 'f1', 'f2', 'f3', 'f4', 'f5', 'f6', 'f7', 'f8', 'f9'] as const;

/** Which records a write touched: posts (events, venues, organizers) or terms (categories, tags). */
export type SearchOwner = 'posts' | 'terms';

type Texts = Record<string, string | null>;
interface Source {
  id: number;
  kind: SearchKind;
  language: string;
  texts: Texts;
}
type DocRow = Record<string, string | number>;

/**
 * Rebuilds the search documents of these records from their current rows and translations (a record that no longer
 * exists loses its documents). Every write of searched text calls it inside its transaction. Records in `made` were
 * inserted by that transaction: they have neither documents nor translations to read or remove yet.
 */
export async function syncSearch(
  db: Executor,
  owner: SearchOwner,
  ids: number[],
  made: ReadonlySet<number> = new Set(),
): Promise<void> {
  const unique = [...new Set(ids)];
  if (!unique.length) return;
  const existing = unique.filter((id) => !made.has(id));
  const [table, key] = owner === 'posts' ? ['post_translations', 'post_id'] : ['term_translations', 'term_id'];
  const [sources, translations] = await Promise.all([
    owner === 'posts' ? postSources(db, unique) : termSources(db, unique),
    existing.length ? translationsOf(db, table, key, existing) : new Map<number, Map<string, Texts>>(),
  ]);
  if (existing.length) {
    const removed = db('search_docs').whereIn('record_id', existing);
    await (owner === 'posts' ? removed.whereNot('kind', 'term') : removed.where('kind', 'term')).delete();
  }
  const rows = sources.flatMap((source) => documentsOf(source, translations.get(source.id)));
  const perStatement = 500; // SQLite binds at most 32 766 values
  for (let at = 0; at < rows.length; at += perStatement)
    await db('search_docs').insert(rows.slice(at, at + perStatement));
}

/** Rebuilds every document, in batches (the migration that adds search, and bulk loads that bypass the services). */
export async function rebuildSearchIndex(db: Executor, batch = 2_000): Promise<void> {
  for (const [owner, table] of [
    ['posts', 'posts'],
    ['terms', 'terms'],
  ] as const) {
    for (let after = 0; ; ) {
      const rows: Array<{ id: number }> = await db(table)
        .where('id', '>', after)
        .orderBy('id')
        .limit(batch)
        .select('id');
      if (!rows.length) break;
      const ids = rows.map((row) => toNumber(row.id));
      await syncSearch(db, owner, ids);
      after = ids[ids.length - 1];
    }
  }
}

function documentsOf(source: Source, translated: Map<string, Texts> | undefined): DocRow[] {
  const document = (language: string, texts: Texts): DocRow => {
    const row: DocRow = {
      kind: source.kind,
      record_id: source.id,
      language,
      is_original: language === source.language ? 1 : 0,
    };
    SEARCH_COLUMNS.forEach((column, index) => {
      const field = SEARCH_FIELDS[source.kind][index];
      row[column] = field === undefined ? '' : indexedText(texts[field]);
    });
    return row;
  };
  const rows = [document(source.language, source.texts)];
  for (const [language, texts] of translated ?? []) {
    if (language !== source.language) rows.push(document(language, { ...source.texts, ...texts }));
  }
  return rows;
}

/**
 * What `postSources` reads: the searched `posts` columns, then each searched own column from the tables of the kinds
 * that have it (a post is of one kind: of those tables, only its own has a row).
 */
function searchedPostColumns(db: Executor): { joins: Set<string>; columns: Array<string | Knex.Raw> } {
  const fromPosts = new Set<string>();
  const joins = new Set<string>();
  const owners = new Map<string, string[]>(); // own column → its sources (`table.column`)
  for (const { table, fields } of postKinds) {
    for (const column of searchColumns(fields)) {
      if (fields[column].table === 'posts') fromPosts.add(column);
      else {
        joins.add(table);
        owners.set(column, [...(owners.get(column) ?? []), `${table}.${column}`]);
      }
    }
  }
  const own = [...owners].map(([column, sources]) =>
    sources.length === 1 ? sources[0] : db.raw(`coalesce(${sources.join(', ')}) as ${column}`),
  );
  return { joins, columns: [...[...fromPosts].map((column) => `p.${column}`), ...own] };
}

async function postSources(db: Executor, ids: number[]): Promise<Source[]> {
  const { joins, columns } = searchedPostColumns(db);
  const query = db('posts as p');
  for (const table of joins) query.leftJoin(table, `${table}.post_id`, 'p.id');
  const rows = await query.whereIn('p.id', ids).select('p.id', 'p.type', 'p.language', ...columns);
  return rows.map((row: Texts & { id: number; type: SearchKind; language: string }) => ({
    id: toNumber(row.id),
    kind: row.type,
    language: row.language,
    texts: row,
  }));
}

async function termSources(db: Executor, ids: number[]): Promise<Source[]> {
  const rows = await db('terms').whereIn('id', ids).select('id', 'language', 'name', 'slug');
  return rows.map((row: Texts & { id: number; language: string }) => ({
    id: toNumber(row.id),
    kind: 'term' as const,
    language: row.language,
    texts: row,
  }));
}

/** Translated fields by record, then language. */
async function translationsOf(
  db: Executor,
  table: string,
  key: string,
  ids: number[],
): Promise<Map<number, Map<string, Texts>>> {
  const rows: Array<{ id: number; language: string; field: string; value: string }> = await db(table)
    .whereIn(key, ids)
    .select(`${key} as id`, 'language', 'field', 'value');
  const byRecord = new Map<number, Map<string, Texts>>();
  for (const { id, language, field, value } of rows) {
    const languages = byRecord.get(toNumber(id)) ?? new Map<string, Texts>();
    languages.set(language, { ...languages.get(language), [field]: value });
    byRecord.set(toNumber(id), languages);
  }
  return byRecord;
}
