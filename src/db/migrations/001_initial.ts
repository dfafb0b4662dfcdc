import type { Knex } from 'knex';

/**
 * Users, the shared post table (events, venues and organizers share one id sequence, as in WordPress),
 * terms and their links to posts, and the login throttle. Instants are UTC text `YYYY-MM-DD HH:MM:SS`. Text a
 * caller can send (logins, slugs, names, passwords) is `text`, never a bounded `varchar` that PostgreSQL would refuse.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (t) => {
    t.increments('id');
    t.text('login').notNullable().unique();
    t.string('password_hash', 255).notNullable();
    t.string('role', 20).notNullable();
    t.string('created_utc', 19).notNullable();
  });

  await knex.schema.createTable('posts', (t) => {
    t.increments('id');
    t.string('type', 20).notNullable(); // event | venue | organizer
    t.string('status', 20).notNullable();
    t.integer('author_id').nullable().references('id').inTable('users').onDelete('SET NULL');
    t.text('slug').notNullable();
    t.string('language', 5).notNullable();
    t.text('title').notNullable().defaultTo('');
    t.text('content').notNullable().defaultTo('');
    t.text('excerpt').notNullable().defaultTo('');
    t.text('password').notNullable().defaultTo('');
    t.string('date_utc', 19).notNullable();
    t.string('modified_utc', 19).notNullable();
    t.unique(['type', 'slug']);
    t.index(['type', 'status']);
  });

  await knex.schema.createTable('terms', (t) => {
    t.increments('id');
    t.string('taxonomy', 32).notNullable(); // tribe_events_cat | post_tag
    t.text('name').notNullable();
    t.text('slug').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.integer('parent').notNullable().defaultTo(0);
    t.string('language', 5).notNullable();
    t.unique(['taxonomy', 'slug']);
    t.index(['taxonomy', 'parent']);
    t.index(['taxonomy', 'name']);
  });

  await knex.schema.createTable('term_relationships', (t) => {
    t.integer('post_id').notNullable().references('id').inTable('posts').onDelete('CASCADE');
    t.integer('term_id').notNullable().references('id').inTable('terms').onDelete('CASCADE');
    t.primary(['post_id', 'term_id']);
    t.index(['term_id', 'post_id']);
  });

  // rate-limiter-flexible's table layout (key, points, expire), shared by every API node
  await knex.schema.createTable('auth_throttle', (t) => {
    t.string('key', 255).primary();
    t.integer('points').notNullable().defaultTo(0);
    t.bigInteger('expire').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['auth_throttle', 'term_relationships', 'terms', 'posts', 'users']) {
    await knex.schema.dropTableIfExists(table);
  }
}
