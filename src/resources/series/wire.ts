/** The series on the wire: an event's `recurrence`, the series an event belongs to, the `recurrence_scope` value. */
import type { Executor } from '../../db/types';
import { invalidParam } from '../../core/errors';
import type { Scope } from './definition';
import * as repo from './repository';

/** The wire `recurrence` of events of a page (absent for single events). */
export async function recurrenceOf(db: Executor, eventIds: number[]) {
  const found = await repo.seriesOfEvents(db, eventIds);
  return new Map(
    [...found].map(([id, m]) => [
      id,
      {
        rrule: m.series.rrule,
        rdates: m.series.rdates,
        exdates: m.series.exdates,
        series_id: m.series_id,
        detached: m.detached,
      },
    ]),
  );
}

/** The series event of the series that holds `eventId` (the event itself when it is single). */
export async function seriesIdOf(db: Executor, eventId: number): Promise<number> {
  return (await repo.membershipOf(db, eventId))?.series_id ?? eventId;
}

export function assertScope(value: unknown): Scope | undefined {
  if (value === undefined) return undefined;
  if (value === 'this' || value === 'following' || value === 'all') return value;
  throw invalidParam('recurrence_scope', 'param_enum', { name: 'recurrence_scope', values: 'this, following, all' });
}
