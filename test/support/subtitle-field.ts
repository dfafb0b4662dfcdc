/**
 * A field the events do not have, registered in their field table for the test file that imports this first (jest
 * loads modules afresh per file): `subtitle`, a text column of `events` that occurrences copy, translations hold,
 * search finds and the `tec` importer copies. `addSubtitleColumn` is its migration; `withSubtitle` its spec.
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import { registerEventField } from '../../src/kinds/fields/events';
import type { Db } from '../../src/db/types';

registerEventField('subtitle', {
  table: 'events',
  value: 'text',
  wire: 'subtitle',
  written: 'text',
  copied: true,
  translatable: true,
  search: 3,
  tec: 'nonEmptyText',
  ics: 'x-subtitle',
});

export async function addSubtitleColumn(db: Db): Promise<void> {
  await db.schema.alterTable('events', (t) => t.text('subtitle').notNullable().defaultTo(''));
}

/** The spec with `subtitle` on the read and write shapes of events. */
export function withSubtitle(document: OpenAPIV3_1.Document): void {
  const schemas = document.components?.schemas as Record<string, OpenAPIV3_1.SchemaObject>;
  for (const name of ['Event', 'EventWrite']) {
    schemas[name].properties = { ...schemas[name].properties, subtitle: { type: 'string' } };
  }
}
