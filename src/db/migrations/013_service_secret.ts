import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * A secret of the service, shared by every node through the database (D68): made once, here, from 32 random
 * bytes, and never changed by the service. It keys the state part of single reads' ETags (an HMAC, http/caching.ts),
 * which would otherwise reveal the data version, and so every write, to anyone who hashed small numbers.
 * A dump leaves it out: every database keeps its own.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('service_secret', (t) => {
    t.integer('id').primary(); // always 1: one row
    t.string('secret', 64).notNullable(); // base64url of 32 random bytes
  });
  await knex('service_secret').insert({ id: 1, secret: randomBytes(32).toString('base64url') });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('service_secret');
}
