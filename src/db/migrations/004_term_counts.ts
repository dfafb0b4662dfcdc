import type { Knex } from 'knex';

/**
 * Each term keeps the number of published events it has (WordPress's `count`), updated on every event write, so
 * reading terms never counts links (categories may have hundreds of thousands of events).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('terms', (t) => {
    t.integer('count').notNullable().defaultTo(0);
  });
  await knex.raw(`update terms set count = (
    select count(*) from term_relationships tr join events e on e.post_id = tr.post_id
    where tr.term_id = terms.id and e.status = 'publish')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('terms', (t) => {
    t.dropColumn('count');
  });
}
