import type { Knex } from 'knex';

/**
 * Teams (D48, D50, D51): a version counter on every post and term (the `If-Match` version), terms' modification time
 * (`If-Unmodified-Since`), application passwords, idempotency keys of creates, and the audit trail.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('posts', (t) => {
    t.integer('version').notNullable().defaultTo(1);
  });
  await knex.schema.alterTable('terms', (t) => {
    t.integer('version').notNullable().defaultTo(1);
    t.string('modified_utc', 19).notNullable().defaultTo('1970-01-01 00:00:00');
  });

  await knex.schema.createTable('app_passwords', (t) => {
    t.increments('id');
    t.string('uuid', 36).notNullable().unique();
    t.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.text('name').notNullable();
    t.string('password_hash', 255).notNullable();
    t.string('scope', 10).nullable(); // null: the user's role; 'read': reads only
    t.string('created_utc', 19).notNullable();
    t.string('last_used_utc', 19).nullable();
    t.text('last_ip').nullable();
    t.index(['user_id']);
  });

  // one row per (caller, key): claimed while the create runs (status null), then the stored answer
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.text('key').notNullable();
    t.string('fingerprint', 64).notNullable();
    t.integer('status').nullable();
    t.text('body').nullable();
    t.text('location').nullable();
    t.string('created_utc', 19).notNullable();
    t.primary(['user_id', 'key']);
    t.index(['created_utc']);
  });

  await knex.schema.createTable('audit_log', (t) => {
    t.increments('id');
    t.string('at_utc', 19).notNullable();
    t.integer('user_id').nullable(); // no foreign key: the trail outlives the user
    t.text('login').nullable();
    t.text('app_password').nullable();
    t.text('address').nullable();
    t.string('via', 10).notNullable(); // api | cli | import
    t.string('operation', 20).notNullable(); // create | update | delete | trash | revoke…
    t.string('resource', 20).notNullable();
    t.text('record_id').notNullable();
    t.text('changes').notNullable(); // JSON {field: [old, new]}
    t.index(['at_utc']);
    t.index(['resource', 'record_id']);
    t.index(['user_id', 'at_utc']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['audit_log', 'idempotency_keys', 'app_passwords']) await knex.schema.dropTableIfExists(table);
  await knex.schema.alterTable('terms', (t) => {
    t.dropColumn('version');
    t.dropColumn('modified_utc');
  });
  await knex.schema.alterTable('posts', (t) => {
    t.dropColumn('version');
  });
}
