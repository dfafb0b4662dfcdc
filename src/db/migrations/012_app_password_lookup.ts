import type { Knex } from 'knex';

/**
 * Application passwords get a lookup digest (D60): SHA-256 of the secret, so a login finds the one
 * candidate by index and pays one slow hash, whatever the number of the user's application passwords. Rows made
 * before this migration have none (their secrets were never stored): the first successful use of each fills it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('app_passwords', (t) => {
    t.string('lookup', 64).nullable(); // null only on passwords made before this migration and not used since
    t.index(['lookup'], 'app_passwords_lookup');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('app_passwords', (t) => {
    t.dropIndex(['lookup'], 'app_passwords_lookup');
    t.dropColumn('lookup');
  });
}
