/**
 * Multilingual text (docs/decisions.md D31). A record's own columns hold its original language; other
 * languages live in `post_translations` / `term_translations`. Reads overlay the requested language field by field,
 * one query per batch of records; writes in another language than the record's touch only that language.
 */
import type { Executor } from '../db/types';
import { toNumber } from '../db/dialect';
import { statement, type Statement } from '../db/statements';
import { POST_KINDS } from '../kinds/fields/kinds';
import { columnsWhere } from '../kinds/fields/table';

interface Table {
  name: 'post_translations' | 'term_translations';
  key: 'post_id' | 'term_id';
  /** The translations of some records in a language, for some fields. */
  find: Statement<[number[], string, string[]]>;
}

const translationsOf = (table: Table['name'], key: Table['key']) =>
  statement((db, ids: number[], language: string, fields: string[]) =>
    db(table)
      .whereIn(key, ids)
      .andWhere({ language })
      .whereIn('field', fields)
      .select(`${key} as id`, 'field', 'value'),
  );

const POSTS: Table = {
  name: 'post_translations',
  key: 'post_id',
  find: translationsOf('post_translations', 'post_id'),
};
const TERMS: Table = {
  name: 'term_translations',
  key: 'term_id',
  find: translationsOf('term_translations', 'term_id'),
};

/** Translatable columns of each kind of record, by the column name the rows carry (posts: any kind's). */
export const POST_FIELDS: readonly string[] = [
  ...new Set(Object.values(POST_KINDS).flatMap(({ fields }) => columnsWhere(fields, (field) => field.translatable))),
];
export const TERM_FIELDS = ['name', 'description'] as const;

type Translatable = { id: number; language: string };

async function overlay<T extends Translatable>(
  db: Executor,
  table: Table,
  rows: T[],
  language: string,
  fields: readonly string[],
): Promise<T[]> {
  const foreign = rows.filter((row) => row.language !== language).map((row) => row.id);
  if (!foreign.length) return rows;
  const found = await table.find.all<{ id: number; field: string; value: string }>(
    db,
    [...new Set(foreign)],
    language,
    [...fields],
  );
  if (!found.length) return rows;
  const byId = new Map<number, Record<string, string>>();
  for (const { id, field, value } of found) byId.set(toNumber(id), { ...byId.get(toNumber(id)), [field]: value });
  return rows.map((row) => (byId.has(row.id) && row.language !== language ? { ...row, ...byId.get(row.id) } : row));
}

/** Posts (events, venues, organizers) in `language`, falling back to their original text field by field. */
export function translatePosts<T extends Translatable>(db: Executor, rows: T[], language: string): Promise<T[]> {
  return overlay(db, POSTS, rows, language, POST_FIELDS);
}

/** Categories and tags in `language`, falling back to their original text field by field. */
export function translateTerms<T extends Translatable>(db: Executor, rows: T[], language: string): Promise<T[]> {
  return overlay(db, TERMS, rows, language, TERM_FIELDS);
}

/**
 * Splits a write's translatable values: those for the record's own language go to its columns (returned), the others
 * are stored as translations of `language`.
 */
async function split<V extends Record<string, unknown>>(
  db: Executor,
  table: Table,
  id: number,
  original: string,
  language: string,
  values: V,
  fields: readonly string[],
): Promise<V> {
  if (original === language) return values;
  const own = { ...values };
  const rows = fields
    .filter((field) => typeof values[field] === 'string')
    .map((field) => {
      delete own[field];
      return { [table.key]: id, language, field, value: values[field] as string };
    });
  if (rows.length) await db(table.name).insert(rows).onConflict([table.key, 'language', 'field']).merge(['value']);
  return own;
}

/** `split` for the records of one table: the record's id, its original language, the writer's, the values sent. */
type Splitter = <V extends Record<string, unknown>>(
  db: Executor,
  id: number,
  original: string,
  language: string,
  values: V,
) => Promise<V>;

const splitterOf =
  (table: Table, fields: readonly string[]): Splitter =>
  (db, id, original, language, values) =>
    split(db, table, id, original, language, values, fields);

/** A write to an event, venue or organizer: its translatable values in another language are translations. */
export const splitPostWrite = splitterOf(POSTS, POST_FIELDS);
/** The same for a category or tag. */
export const splitTermWrite = splitterOf(TERMS, TERM_FIELDS);
