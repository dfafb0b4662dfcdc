/** `GET /venues` and `GET /organizers` as lists of the kernel's pipeline (core/lists.ts). */
import type { ListSource, Representation } from '../../core/lists';
import { linkedBytes } from '../records';
import { withModifiedRange } from '../posts/modified';
import type { LinkedKind, LinkedRow, LinkedType } from './kinds';
import { listLinked, type LinkedFilters } from './repository';
import { linkedFilters, type LinkedListQuery } from './service';

type Query = LinkedListQuery & { modified_after?: string; modified_before?: string };

/** The list of a kind: ids newest first with the exact total, then their rows in that order. */
export function linkedList(kind: LinkedKind): ListSource<Query, LinkedFilters, LinkedRow> {
  return {
    async filters({ db, caller, language, config }, q) {
      return withModifiedRange(await linkedFilters(db, kind, caller, q, language), q, config.siteTimezone);
    },
    async page({ db }, filters, { limit, offset }) {
      const { ids, total } = await listLinked(db, kind, filters, limit, offset);
      const rows = await kind.load(db, ids);
      return { rows: ids.map((id) => rows.get(id) as LinkedRow), total };
    },
  };
}

/** Each record of a page as the bytes of its JSON (lists show no `json_ld`). */
export function linkedListBytes<T extends LinkedType>(
  kind: LinkedKind<T>,
): Representation<unknown, LinkedRow, Buffer[]> {
  return (reader, rows) => linkedBytes(reader, kind, rows, false);
}
