/**
 * What the event writes and reads take from the events' field table (src/kinds/fields/events.ts) beyond the
 * repository's columns: the plain fields a write stores, the fields whose change rebuilds the search documents, and
 * the fields the mapper answers after the plugin's keys.
 */
import { EVENT_FIELDS } from '../../kinds/fields/events';
import { type Field, fieldEntries, searchColumns } from '../../kinds/fields/table';

type Wired = { column: string; wire: string; field: Field };

/** Fields with a wire name, in declaration order: the mapper answers those the plugin's keys do not cover. */
export const WIRE_FIELDS: readonly Wired[] = fieldEntries(EVENT_FIELDS).flatMap(([column, field]) =>
  field.wire ? [{ column, wire: field.wire, field }] : [],
);

/** `events` columns a write stores as sent text (`written: 'text'`), by wire name. */
export const PLAIN_TEXT_FIELDS = WIRE_FIELDS.filter(
  ({ field }) => field.table === 'events' && field.written === 'text',
);

/** Columns whose change rebuilds the event's search documents. */
export const SEARCHED_COLUMNS: readonly string[] = searchColumns(EVENT_FIELDS);
