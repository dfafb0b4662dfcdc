import type { Knex } from 'knex';

/**
 * Recurring series (D54). Every occurrence is an event of its own; these tables only say which series it
 * belongs to. `event_series` holds the rule of each series, keyed by its series event (the first occurrence), and
 * how far an open-ended rule is materialised; `series_occurrences` maps each occurrence (the series event
 * included) to its series, with the local start the rule gave it (its key when the series is regenerated) and
 * whether it was edited alone (detached). `series_lease` is the one row the daily horizon extension locks, so that
 * one node does it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('event_series', (t) => {
    t.integer('event_id').primary().references('id').inTable('posts').onDelete('CASCADE');
    t.text('rrule').notNullable();
    t.text('rdates').notNullable().defaultTo('[]'); // JSON array of local wall-clock times
    t.text('exdates').notNullable().defaultTo('[]');
    t.boolean('open_ended').notNullable();
    t.string('horizon_utc', 19).nullable(); // open-ended rules: materialised up to this instant
    t.index(['open_ended', 'horizon_utc'], 'event_series_horizon');
  });
  await knex.schema.createTable('series_occurrences', (t) => {
    t.integer('event_id').primary().references('id').inTable('posts').onDelete('CASCADE');
    t.integer('series_id').notNullable().references('id').inTable('posts').onDelete('CASCADE');
    t.string('original_local', 19).notNullable();
    t.boolean('detached').notNullable().defaultTo(false);
    t.index(['series_id', 'original_local'], 'series_occurrences_series');
  });
  await knex.schema.createTable('series_lease', (t) => {
    t.string('name', 32).primary();
    t.string('extended_utc', 19).notNullable();
  });
  await knex('series_lease').insert({ name: 'horizon', extended_utc: '1970-01-01 00:00:00' });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['series_lease', 'series_occurrences', 'event_series'])
    await knex.schema.dropTableIfExists(table);
}
