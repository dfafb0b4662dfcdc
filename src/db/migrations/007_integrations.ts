import type { Knex } from 'knex';

/**
 * The change feed and the webhook outbox (D52, D53). `changes` is written in the same transaction as the write it
 * describes; its id (an autoincrement that never reuses a value, a sequence on PostgreSQL) is the feed's one total
 * order. `change_feed` remembers how far retention pruned, so an older cursor is told so (410). Each matching
 * subscription gets a `webhook_deliveries` row in that same transaction; `webhook_attempts` logs every try.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('changes', (t) => {
    t.bigIncrements('id');
    t.string('resource', 16).notNullable();
    t.integer('record_id').notNullable();
    t.string('action', 16).notNullable();
    t.string('modified_utc', 19).notNullable();
    t.index(['modified_utc']);
  });
  await knex.schema.createTable('change_feed', (t) => {
    t.integer('id').primary();
    t.bigInteger('pruned_through').notNullable().defaultTo(0);
  });
  await knex('change_feed').insert({ id: 1, pruned_through: 0 });
  await knex.schema.createTable('webhooks', (t) => {
    t.increments('id');
    t.text('url').notNullable();
    t.text('events').notNullable(); // JSON array of event types or ['*']
    t.boolean('active').notNullable().defaultTo(true);
    t.text('description').notNullable().defaultTo('');
    t.text('secret').notNullable(); // sealed (see src/integrations/webhooks/signing.ts)
    t.text('previous_secret');
    t.string('previous_secret_until_utc', 19);
    t.string('failing_since_utc', 19);
    t.string('disabled_utc', 19);
    t.text('disabled_reason');
    t.string('created_utc', 19).notNullable();
    t.string('modified_utc', 19).notNullable();
  });
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.bigIncrements('id');
    t.integer('webhook_id').notNullable().references('id').inTable('webhooks').onDelete('CASCADE');
    t.string('message_id', 64).notNullable();
    t.string('type', 32).notNullable();
    t.string('resource', 16);
    t.integer('record_id');
    t.bigInteger('change_id');
    t.string('created_utc', 19).notNullable();
    t.text('payload'); // the body sent, fixed at the first attempt so retries send the same bytes
    t.string('state', 12).notNullable(); // pending | succeeded | failed
    t.integer('attempt_count').notNullable().defaultTo(0);
    t.string('next_attempt_utc', 19).notNullable();
    t.string('claimed_until_utc', 19);
    t.string('last_attempt_utc', 19);
    t.integer('last_status');
    t.index(['state', 'next_attempt_utc']);
    t.index(['webhook_id', 'resource', 'record_id', 'id']);
  });
  await knex.schema.createTable('webhook_attempts', (t) => {
    t.bigIncrements('id');
    t.bigInteger('delivery_id').notNullable().references('id').inTable('webhook_deliveries').onDelete('CASCADE');
    t.integer('attempt').notNullable();
    t.string('attempted_utc', 19).notNullable();
    t.integer('status');
    t.integer('duration_ms').notNullable();
    t.text('response_body');
    t.text('error');
    t.index(['delivery_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhooks', 'change_feed', 'changes']) {
    await knex.schema.dropTableIfExists(table);
  }
}
