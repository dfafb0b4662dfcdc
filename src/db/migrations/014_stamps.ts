import type { Knex } from 'knex';

/**
 * A stamp on every post and term (D71): raised by the write kernel (core/write.ts) on every write that changes
 * what a reading of the record shows, its own fields or links, a translation, a term's count. The representation
 * cache (src/cache/) keys a rendered record by the stamps of the record and of what it embeds, so an entry can never
 * be served once one of them moved, on any node. Apart from `version` (what `If-Match` names, raised by the record's
 * own updates only) so that a count moved by another event's write never fails someone's `If-Match`.
 */
export async function up(knex: Knex): Promise<void> {
  for (const table of ['posts', 'terms']) {
    await knex.schema.alterTable(table, (t) => {
      t.bigInteger('stamp').notNullable().defaultTo(0);
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['posts', 'terms']) {
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn('stamp');
    });
  }
}
