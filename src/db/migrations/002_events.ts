import type { Knex } from 'knex';

/**
 * Events, venues, organizers and images. Each event, venue and organizer is a `posts` row (one id sequence) plus a
 * row here with its own fields. Instants are UTC text `YYYY-MM-DD HH:MM:SS`; local wall-clock times are kept beside
 * them because the plugin's wire format shows both. `events.status` repeats `posts.status` so that the list index
 * below answers the hot queries (default window, date filters, counts) without touching `posts`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('images', (t) => {
    t.increments('id');
    t.text('url').notNullable();
    t.string('extension', 10).notNullable();
    t.string('created_utc', 19).notNullable();
    t.index(['url']);
  });

  await knex.schema.createTable('venues', (t) => {
    t.integer('post_id').primary().references('id').inTable('posts').onDelete('CASCADE');
    for (const column of [
      'address',
      'city',
      'country',
      'province',
      'state',
      'zip',
      'phone',
      'stateprovince',
      'website',
    ]) {
      t.text(column).notNullable().defaultTo('');
    }
    t.boolean('show_map').notNullable().defaultTo(true);
    t.boolean('show_map_link').notNullable().defaultTo(true);
    t.double('geo_lat').nullable();
    t.double('geo_lng').nullable();
    t.integer('image_id').nullable().references('id').inTable('images').onDelete('SET NULL');
    t.index(['geo_lat', 'geo_lng']);
  });

  await knex.schema.createTable('organizers', (t) => {
    t.integer('post_id').primary().references('id').inTable('posts').onDelete('CASCADE');
    for (const column of ['phone', 'website', 'email']) t.text(column).notNullable().defaultTo('');
    t.integer('image_id').nullable().references('id').inTable('images').onDelete('SET NULL');
  });

  await knex.schema.createTable('events', (t) => {
    t.integer('post_id').primary().references('id').inTable('posts').onDelete('CASCADE');
    t.string('status', 20).notNullable();
    t.string('start_local', 19).notNullable();
    t.string('end_local', 19).notNullable();
    t.string('start_utc', 19).notNullable();
    t.string('end_utc', 19).notNullable();
    t.string('timezone', 64).notNullable();
    t.boolean('all_day').notNullable().defaultTo(false);
    t.text('cost').nullable(); // JSON array of the cost entries as sent
    t.string('currency_symbol', 16).notNullable().defaultTo('');
    t.string('currency_position', 8).notNullable().defaultTo('');
    t.text('website').nullable(); // null: never set (reads show the permalink); '': cleared
    t.boolean('show_map').notNullable().defaultTo(true);
    t.boolean('show_map_link').notNullable().defaultTo(true);
    t.boolean('hide_from_listings').notNullable().defaultTo(false);
    t.boolean('sticky').notNullable().defaultTo(false);
    t.boolean('featured').notNullable().defaultTo(false);
    t.integer('venue_id').nullable().references('id').inTable('posts').onDelete('SET NULL');
    t.integer('post_parent').nullable().references('id').inTable('posts').onDelete('SET NULL');
    t.integer('image_id').nullable().references('id').inTable('images').onDelete('SET NULL');
    // the list: visible events of a status in start order, with the end for the window test (covering)
    t.index(['hide_from_listings', 'status', 'start_utc', 'end_utc'], 'events_list');
    t.index(['end_utc'], 'events_end');
    t.index(['venue_id', 'start_utc'], 'events_venue');
    t.index(['post_parent'], 'events_parent');
  });

  await knex.schema.createTable('event_organizers', (t) => {
    t.integer('event_id').notNullable().references('id').inTable('posts').onDelete('CASCADE');
    t.integer('organizer_id').notNullable().references('id').inTable('posts').onDelete('CASCADE');
    t.integer('position').notNullable();
    t.primary(['event_id', 'organizer_id']);
    t.index(['organizer_id', 'event_id']);
  });

  await knex.schema.alterTable('posts', (t) => {
    t.index(['type', 'date_utc'], 'posts_type_date');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('posts', (t) => t.dropIndex(['type', 'date_utc'], 'posts_type_date'));
  for (const table of ['event_organizers', 'events', 'organizers', 'venues', 'images']) {
    await knex.schema.dropTableIfExists(table);
  }
}
