/**
 * `modified_after` / `modified_before` on the lists of events, venues and organizers (WordPress `wp/v2` has them):
 * dates read like every other date parameter (in the site's zone unless they say otherwise), compared with the
 * record's `modified_utc`. A bad date is 400 naming the parameter.
 */
import type { Knex } from 'knex';
import { formatUtc, parseDateInput } from '../../domain/dates';
import { invalidParam } from '../../core/errors';

interface ModifiedQuery {
  modified_after?: string;
  modified_before?: string;
}

/** The aliases a list query gives its tables: `p` the posts row, `e` the events row (default `p` and `e`). */
export interface ListTables {
  p: string;
  e?: string;
}
/** Restricts a list query to the rows the caller may read. */
export type ReadableFilter = (query: Knex.QueryBuilder, tables?: ListTables) => Knex.QueryBuilder;
type Filters = { readable?: ReadableFilter };

function bound(name: keyof ModifiedQuery, value: string | undefined, zone: string): string | undefined {
  if (value === undefined) return undefined;
  const instant = parseDateInput(value, zone);
  if (!instant) throw invalidParam(name, 'date_invalid');
  return formatUtc(instant);
}

/** The filters, restricted to the modification window when one was asked (on the posts row of the list). */
export function withModifiedRange<F extends Filters>(filters: F, query: ModifiedQuery, zone: string): F {
  const after = bound('modified_after', query.modified_after, zone);
  const before = bound('modified_before', query.modified_before, zone);
  if (after === undefined && before === undefined) return filters;
  const readable = filters.readable;
  return {
    ...filters,
    readable(q: Knex.QueryBuilder, tables?: ListTables) {
      if (readable) readable(q, tables);
      const p = tables?.p ?? 'p';
      if (after !== undefined) q.where(`${p}.modified_utc`, '>', after);
      if (before !== undefined) q.where(`${p}.modified_utc`, '<', before);
      return q;
    },
  };
}
