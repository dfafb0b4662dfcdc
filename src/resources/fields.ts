/**
 * Reading a field table's own columns (src/kinds/fields/): the select list and the per-engine normalisation of
 * a row, shared by events, venues and organizers.
 */
import type { Executor } from '../db/types';
import { toBoolean, toNumber } from '../db/dialect';
import { statement } from '../db/statements';
import { type FieldTable, fieldEntries, type ValueKind } from '../kinds/fields/table';
import { normalisePost, type PostRow } from './posts/repository';

const nullable = (read: (value: unknown) => unknown) => (value: unknown) =>
  value === null || value === undefined ? null : read(value);

/** How each kind of value is made the same on both engines (text needs nothing). */
const NORMALISE: Partial<Record<ValueKind, (value: unknown) => unknown>> = {
  flag: toBoolean,
  nullableId: nullable(toNumber),
  nullableNumber: nullable(Number),
};

/** The own-table columns to select (`alias.column`), without those `posts` holds too. */
export function selectedColumns(fields: FieldTable, alias: string): string[] {
  return fieldEntries(fields)
    .filter(([, field]) => field.table !== 'posts' && !field.mirrorsPost)
    .map(([column]) => `${alias}.${column}`);
}

/**
 * A function normalising, in place, the table's own columns of a row the caller owns (a copy: `normalisePost`
 * makes one), so that a page of rows is copied once.
 */
export function columnNormaliser<R extends object>(fields: FieldTable): (row: R) => R {
  const steps = fieldEntries(fields).flatMap(([column, field]) => {
    const normalise = field.table === 'posts' ? undefined : NORMALISE[field.value];
    return normalise ? [[column, normalise] as const] : [];
  });
  return (row) => {
    const values = row as Record<string, unknown>;
    for (const [column, normalise] of steps) values[column] = normalise(values[column]);
    return row;
  };
}

/**
 * Records of one post kind by id, one query: the `posts` row joined with the kind's own row (`table`), normalised
 * (venues and organizers).
 */
export function postsWithFields<R extends PostRow>(
  table: string,
  fields: FieldTable,
): { byIds(db: Executor, ids: number[]): Promise<Map<number, R>>; normalise(row: R): R } {
  const query = statement((db, ids: number[]) =>
    db('posts as p').join(`${table} as d`, 'd.post_id', 'p.id').whereIn('p.id', ids).select('p.*', 'd.*'),
  );
  const columns = columnNormaliser<R>(fields);
  const normalise = (row: R) => columns(normalisePost(row));
  return {
    normalise,
    async byIds(db, ids) {
      if (!ids.length) return new Map();
      const rows = await query.all<R>(db, [...new Set(ids)]);
      return new Map(rows.map((row) => [toNumber(row.id), normalise(row)]));
    },
  };
}
