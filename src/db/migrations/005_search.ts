import type { Knex } from 'knex';
import { isPostgres } from '../dialect';
import { COLUMNS, fillSearchDocuments } from './frozen/search-documents-v1';

/**
 * Search documents (`src/search/`): the normalised text of each record's searched fields per language, indexed by
 * trigrams (SQLite FTS5 `trigram` on an external-content table kept in step by triggers; PostgreSQL `pg_trgm` GIN),
 * then filled from the existing records (with the documents as they were then: frozen/search-documents-v1.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('search_docs', (t) => {
    t.increments('id');
    t.string('kind', 10).notNullable(); // event | venue | organizer | term
    t.integer('record_id').notNullable();
    t.string('language', 5).notNullable();
    t.smallint('is_original').notNullable();
    for (const column of COLUMNS) t.text(column).notNullable().defaultTo('');
    t.unique(['kind', 'record_id', 'language']);
    t.index(['record_id']);
  });
  if (isPostgres(knex)) await postgresIndex(knex);
  else await sqliteIndex(knex);
  await fillSearchDocuments(knex);
}

async function postgresIndex(knex: Knex): Promise<void> {
  await knex.raw('create extension if not exists pg_trgm');
  // the operator class lives where the extension was installed, which need not be on this schema's search path
  const { rows } = await knex.raw(
    `select extnamespace::regnamespace::text as schema from pg_extension where extname = 'pg_trgm'`,
  );
  const opclass = `${rows[0].schema}.gin_trgm_ops`;
  await knex.raw(
    `create index search_docs_trgm on search_docs using gin (${COLUMNS.map((c) => `${c} ${opclass}`).join(', ')})`,
  );
}

async function sqliteIndex(knex: Knex): Promise<void> {
  const list = COLUMNS.join(', ');
  const values = (row: string) => COLUMNS.map((c) => `${row}.${c}`).join(', ');
  await knex.raw(`create virtual table search_fts using fts5(${list}, content='search_docs', content_rowid='id',
    tokenize='trigram case_sensitive 1')`);
  await knex.raw(`create virtual table search_vocab using fts5vocab(search_fts, 'row')`);
  await knex.raw(`create trigger search_docs_ai after insert on search_docs begin
    insert into search_fts(rowid, ${list}) values (new.id, ${values('new')}); end`);
  await knex.raw(`create trigger search_docs_ad after delete on search_docs begin
    insert into search_fts(search_fts, rowid, ${list}) values ('delete', old.id, ${values('old')}); end`);
  await knex.raw(`create trigger search_docs_au after update on search_docs begin
    insert into search_fts(search_fts, rowid, ${list}) values ('delete', old.id, ${values('old')});
    insert into search_fts(rowid, ${list}) values (new.id, ${values('new')}); end`);
}

export async function down(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) {
    await knex.raw('drop table if exists search_vocab');
    await knex.raw('drop table if exists search_fts');
  }
  await knex.schema.dropTableIfExists('search_docs');
}
