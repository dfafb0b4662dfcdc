/**
 * The search documents as migration 005 built them: a frozen copy of src/search/ (normalisation, fields per kind,
 * one row per record and language) at the time of that migration, so that what the migration does never changes
 * when the live search code does. Only migration 005 uses it; later changes to the documents come with a
 * migration (and a frozen copy) of their own.
 */
import type { Knex } from 'knex';
import { toNumber } from '../../dialect';

export const COLUMNS = ['f0', 'f1', 'f2', 'f3', 'f4', 'f5', 'f6', 'f7', 'f8', 'f9'] as const;

type Kind = 'event' | 'venue' | 'organizer' | 'term';
const FIELDS: Record<Kind, readonly string[]> = {
  event: ['title', 'excerpt', 'content'],
  venue: ['title', 'content', 'excerpt', 'address', 'city', 'province', 'state', 'stateprovince', 'zip', 'phone'],
  organizer: ['title', 'content', 'excerpt', 'phone', 'email', 'website'],
  term: ['name', 'slug'],
};

const KEPT_MARKS = /[\u3099\u309a]/u;
const MARKS = /\p{M}/gu;
const CONTROLS = /\p{Cc}/gu;
const FOLDED: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
  ŧ: 't',
  ŀ: 'l',
  ς: 'σ',
  '\u2018': "'",
  '\u2019': "'",
  '\u02bc': "'",
  '\u2032': "'",
};
const FOLDABLE = new RegExp(`[${Object.keys(FOLDED).join('')}]`, 'gu');

function indexedText(text: string | null | undefined): string {
  const decomposed = (text ?? '').normalize('NFKD').replace(MARKS, (mark) => (KEPT_MARKS.test(mark) ? mark : ''));
  const normalised = decomposed
    .normalize('NFC')
    .toLowerCase()
    .replace(FOLDABLE, (c) => FOLDED[c])
    .replace(CONTROLS, ' ');
  return normalised ? `${normalised}\u0001\u0001` : '';
}

type Texts = Record<string, string | null>;
interface Source {
  id: number;
  kind: Kind;
  language: string;
  texts: Texts;
}

/** Fills `search_docs` from every post and term, in batches. */
export async function fillSearchDocuments(knex: Knex, batch = 2_000): Promise<void> {
  for (const owner of ['posts', 'terms'] as const) {
    for (let after = 0; ; ) {
      const rows: Array<{ id: number }> = await knex(owner)
        .where('id', '>', after)
        .orderBy('id')
        .limit(batch)
        .select('id');
      if (!rows.length) break;
      const ids = rows.map((row) => toNumber(row.id));
      const sources = owner === 'posts' ? await postSources(knex, ids) : await termSources(knex, ids);
      const translations =
        owner === 'posts'
          ? await translationsOf(knex, 'post_translations', 'post_id', ids)
          : await translationsOf(knex, 'term_translations', 'term_id', ids);
      const docs = sources.flatMap((source) => documentsOf(source, translations.get(source.id)));
      for (let at = 0; at < docs.length; at += 500) await knex('search_docs').insert(docs.slice(at, at + 500));
      after = ids[ids.length - 1];
    }
  }
}

function documentsOf(source: Source, translated: Map<string, Texts> | undefined): Array<Record<string, unknown>> {
  const document = (language: string, texts: Texts) => {
    const row: Record<string, unknown> = {
      kind: source.kind,
      record_id: source.id,
      language,
      is_original: language === source.language ? 1 : 0,
    };
    COLUMNS.forEach((column, index) => {
      const field = FIELDS[source.kind][index];
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

async function postSources(knex: Knex, ids: number[]): Promise<Source[]> {
  const rows = await knex('posts as p')
    .leftJoin('venues as v', 'v.post_id', 'p.id')
    .leftJoin('organizers as o', 'o.post_id', 'p.id')
    .whereIn('p.id', ids)
    .select('p.id', 'p.type', 'p.language', 'p.title', 'p.content', 'p.excerpt', 'v.address', 'v.city')
    .select('v.province', 'v.state', 'v.stateprovince', 'v.zip', 'o.email', 'o.website')
    .select(knex.raw('coalesce(v.phone, o.phone) as phone'));
  return rows.map((row: Texts & { id: number; type: Kind; language: string }) => ({
    id: toNumber(row.id),
    kind: row.type,
    language: row.language,
    texts: row,
  }));
}

async function termSources(knex: Knex, ids: number[]): Promise<Source[]> {
  const rows = await knex('terms').whereIn('id', ids).select('id', 'language', 'name', 'slug');
  return rows.map((row: Texts & { id: number; language: string }) => ({
    id: toNumber(row.id),
    kind: 'term' as const,
    language: row.language,
    texts: row,
  }));
}

async function translationsOf(knex: Knex, table: string, key: string, ids: number[]) {
  const rows: Array<{ id: number; language: string; field: string; value: string }> = await knex(table)
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
