/**
 * Series in a feed (D54): every occurrence is an event of its own, but a calendar wants one VEVENT per series
 * (RRULE, RDATE, EXDATE, from the series event) plus one VEVENT with RECURRENCE-ID per detached occurrence. The
 * occurrences the rule gives are left to the reader's expansion.
 */
import type { Executor } from '../../db/types';
import type { Caller } from '../../users/roles';
import { canRead } from '../../users/roles';
import { findEvent, type EventRow } from '../../resources/events/repository';
import { membersOf, seriesOfEvents, timesOf } from '../../resources/series/repository';

export interface FeedItem {
  row: EventRow;
  recurrence?: { rrule: string; rdates: string[]; exdates: string[] };
  recurrenceId?: string;
  coverUntilUtc?: string;
}

/** Feeds leave out what the caller may not read, trashed events and password-protected ones. */
function visible(row: EventRow | undefined, caller: Caller | undefined): row is EventRow {
  return Boolean(
    row &&
      row.status !== 'trash' &&
      !row.password &&
      canRead(caller, 'events', { authorId: row.author_id, status: row.status }),
  );
}

/**
 * The feed's items for `rows`, in their order: single events as they are; for the first occurrence of each series
 * met, its series event with the rule, then its detached occurrences. A series whose event the caller may not see
 * falls back to its occurrences as single events.
 */
export async function feedItems(db: Executor, rows: EventRow[], caller: Caller | undefined): Promise<FeedItem[]> {
  const memberships = await seriesOfEvents(
    db,
    rows.map((row) => row.id),
  );
  const items: FeedItem[] = [];
  const done = new Set<number>();
  for (const row of rows) {
    const membership = memberships.get(row.id);
    if (!membership) {
      items.push({ row });
      continue;
    }
    if (done.has(membership.series_id)) continue;
    const master = membership.series_id === row.id ? row : await findEvent(db, membership.series_id);
    if (!visible(master, caller)) {
      items.push({ row });
      continue;
    }
    done.add(membership.series_id);
    const { series } = membership;
    const members = await membersOf(db, series.event_id);
    const times = await timesOf(
      db,
      members.map((m) => m.event_id),
    );
    const coverUntilUtc = [...times.values()].reduce(
      // biome-ignore lint/complexity/useMathMinMax: the latest of UTC times as text, not numbers
      (last, t) => (t.end_utc > last ? t.end_utc : last),
      master.end_utc,
    );
    items.push({
      row: master,
      recurrence: { rrule: series.rrule, rdates: series.rdates, exdates: series.exdates },
      coverUntilUtc,
    });
    for (const member of members) {
      if (!member.detached || member.event_id === series.event_id || series.exdates.includes(member.original_local))
        continue;
      const occurrence = await findEvent(db, member.event_id);
      if (visible(occurrence, caller)) items.push({ row: occurrence, recurrenceId: member.original_local });
    }
  }
  return items;
}
