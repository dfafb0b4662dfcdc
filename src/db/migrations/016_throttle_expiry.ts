import type { Knex } from 'knex';

/** The login throttle's counters by expiry: the retention purge deletes the expired ones (audit/retention.ts). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('auth_throttle', (t) => {
    t.index(['expire'], 'auth_throttle_expire');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('auth_throttle', (t) => {
    t.dropIndex(['expire'], 'auth_throttle_expire');
  });
}
