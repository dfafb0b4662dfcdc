import type { Knex } from 'knex';

/**
 * Translated text of posts (title, content, excerpt) and terms (name, description), one row per record, language
 * and field. The record's own columns hold its original language (`posts.language`, `terms.language`); a read in
 * another language takes each field from here when present and falls back to the original field by field.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('post_translations', (t) => {
    t.integer('post_id').notNullable().references('id').inTable('posts').onDelete('CASCADE');
    t.string('language', 5).notNullable();
    t.string('field', 20).notNullable();
    t.text('value').notNullable();
    t.primary(['post_id', 'language', 'field']);
  });
  await knex.schema.createTable('term_translations', (t) => {
    t.integer('term_id').notNullable().references('id').inTable('terms').onDelete('CASCADE');
    t.string('language', 5).notNullable();
    t.string('field', 20).notNullable();
    t.text('value').notNullable();
    t.primary(['term_id', 'language', 'field']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('term_translations');
  await knex.schema.dropTableIfExists('post_translations');
}
