import type { Knex } from 'knex';
import { isPostgres } from '../dialect';

/**
 * Indexes for what a search asks of each candidate (src/search/predicate.ts); a common word has ~50 000 candidates
 * at a million events:
 * - whether its record is password-protected, and whether it has a translation in the requested language: two
 *   partial indexes of the few such rows, which SQLite reads once per search instead of probing per candidate, and
 *   PostgreSQL's anti-joins probe;
 * - SQLite: each document's kind, language, whether it is the original and its record, by id, so that a candidate
 *   is checked without reading its row (the text of ten fields). PostgreSQL reads the rows anyway, to check the
 *   `LIKE`s its trigram index only narrows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create index posts_protected on posts (id) where password <> ''`);
  await knex.raw(
    'create index search_docs_translated on search_docs (kind, language, record_id) where is_original = 0',
  );
  if (!isPostgres(knex))
    await knex.raw('create index search_docs_lookup on search_docs (id, kind, language, is_original, record_id)');
}

export async function down(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) await knex.raw('drop index search_docs_lookup');
  await knex.raw('drop index search_docs_translated');
  await knex.raw('drop index posts_protected');
}
