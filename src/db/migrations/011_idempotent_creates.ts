import type { Knex } from 'knex';

/**
 * Idempotent creates that survive a crash (D49): each claim of an `Idempotency-Key` gets its own random token
 * (`claim`), and the create's own transaction writes onto it which record it made (`resource`, `record_id`, with
 * `status` and `location`), so a create that committed is never taken over and created again, even when its answer
 * (`body`, stored after the commit) was lost.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.string('claim', 36).nullable(); // null only on claims made before this migration
    t.string('resource', 20).nullable(); // event | venue | organizer | category | tag
    t.integer('record_id').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.dropColumn('claim');
    t.dropColumn('resource');
    t.dropColumn('record_id');
  });
}
