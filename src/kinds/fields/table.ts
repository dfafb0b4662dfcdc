/**
 * Field tables: one declaration per field of a kind of record (events, venues, organizers), from which the
 * repositories, the series copy, translations, search documents, linked kinds and importers take their field lists.
 * Pure data beside the registry of kinds (floor 1), so that `src/search/` reads the same tables as the resources.
 */

/** A column's value once normalised; each kind says how the engines return it (`resources/fields.ts`). */
export interface ValueTypes {
  text: string;
  nullableText: string | null;
  /** SQLite answers 0/1. */
  flag: boolean;
  /** PostgreSQL answers bigint strings. */
  nullableId: number | null;
  nullableNumber: number | null;
}
export type ValueKind = keyof ValueTypes;

/**
 * How the `tec` importer copies the field from the source's record, which answers in the same wire shape (the field's
 * `wire` name): `text` always (`String`), `textOrEmpty` always, absent as `""`; `nonEmptyText` only when it is a
 * non-empty string (the services refuse an empty description); `flag` always (`Boolean`); `asSent` when it is
 * neither null nor absent.
 */
export type TecMapping = 'text' | 'textOrEmpty' | 'nonEmptyText' | 'flag' | 'asSent';

export interface Field<Own extends string = string> {
  /** Where the column lives: `posts` (shared by every kind) or the kind's own table. */
  table: 'posts' | Own;
  value: ValueKind;
  /** Its name on the wire and in writes, when the record shows it under a name of its own. */
  wire?: string;
  /** Series occurrences take it from their series event. */
  copied?: boolean;
  /** Other languages are stored as translations (`post_translations`, keyed by the column). */
  translatable?: boolean;
  /** Its column in the search documents (0 is `f0`): STORED data, never renumbered. */
  search?: number;
  /** A password-protected event hides it from callers who have not unlocked it. */
  protected?: boolean;
  /** Also stored in `posts` under the same name; reads take the `posts` copy. */
  mirrorsPost?: boolean;
  /** A linked post's create reuses a record with the same value (docs/compatibility.md §4.7). */
  duplicate?: boolean;
  /**
   * How writes store it when `input.ts` has no rule of its own for it: `text`, the sent text without tags (own-table
   * columns only; omitted means unchanged, a create without it stores the column's default).
   */
  written?: 'text';
  /** Copied by the `tec` importer from the source record's `wire` field. */
  tec?: TecMapping;
  /** Read from this iCalendar property by the `ics` importer (lower case). */
  ics?: string;
}

export type FieldTable<Own extends string = string> = Record<string, Field<Own>>;

const read = new WeakSet<FieldTable>();

/** The row type of a table's own columns (its `posts` columns are the post row's). */
export type ColumnsOf<T extends FieldTable, Own extends string> = {
  -readonly [C in keyof T as T[C]['table'] extends Own ? C : never]: ValueTypes[T[C]['value']];
};

export type FieldEntry = [column: string, field: Field];

/** The table's fields in declaration order; the table counts as read from then on (`extendTable`). */
export function fieldEntries(table: FieldTable): FieldEntry[] {
  read.add(table);
  return Object.entries(table);
}
const entries = fieldEntries;
const columns = (list: FieldEntry[]): string[] => list.map(([column]) => column);

/** The kind's own columns (not `posts`), in declaration order. */
export function ownColumns(table: FieldTable): string[] {
  return columns(entries(table).filter(([, field]) => field.table !== 'posts'));
}

/** Columns whose flag `which` is set, in declaration order. */
export function columnsWhere(table: FieldTable, which: (field: Field) => boolean | undefined): string[] {
  return columns(entries(table).filter(([, field]) => which(field)));
}

/** The searched columns in document order (`f0`, `f1`, …). */
export function searchColumns(table: FieldTable): string[] {
  const searched = entries(table).filter(([, field]) => field.search !== undefined);
  return columns(searched.sort(([, a], [, b]) => (a.search as number) - (b.search as number)));
}

/**
 * Adds a field to a table: for a test that follows a new field through the service. It must run before any module
 * that derives from the table is loaded, so it refuses once a derivation has read the table.
 */
export function extendTable(table: FieldTable, column: string, field: Field): void {
  if (read.has(table)) throw new Error(`field ${column} added after the table was read`);
  if (column in table) throw new Error(`field ${column} is already declared`);
  table[column] = field;
}
