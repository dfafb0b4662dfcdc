import type { Knex } from 'knex';

/**
 * iCalendar: each event counts its changes (`revision`, the feed's SEQUENCE, bumped in every event write's
 * transaction), and imports remember which local record each source record became (`import_mappings`: source
 * identifier, e.g. an iCalendar UID or a plugin site's global id → local post id), so re-runs update instead of
 * duplicating and an interrupted run resumes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.integer('revision').notNullable().defaultTo(0);
  });
  await knex.schema.createTable('import_mappings', (t) => {
    t.string('source', 40).notNullable(); // 'ics' or 'tec'
    t.string('source_id', 1000).notNullable();
    t.string('kind', 20).notNullable(); // event, venue, organizer, category, tag, image
    t.integer('local_id').notNullable();
    t.string('fingerprint', 64).notNullable().defaultTo(''); // hash of what was imported: unchanged records are skipped
    t.primary(['source', 'kind', 'source_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('import_mappings');
  await knex.schema.alterTable('events', (t) => {
    t.dropColumn('revision');
  });
}
