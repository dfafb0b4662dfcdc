/**
 * Occurrences as events of their own: making them match the series' rule (ids kept per original date, detached
 * ones untouched), with the series event's fields, links, times and slugs.
 */
import type { Knex } from 'knex';
import { utcNow } from '../../db/dialect';
import { formatLocal, formatUtc, fromLocal, fromUtc, type WallClock } from '../../domain/dates';
import { invalidParam } from '../../core/errors';
import type { Write } from '../../core/write';
import * as posts from '../posts/repository';
import type { EventFields, EventRow } from '../events/repository';
import { EVENT_FIELDS } from '../../kinds/fields/events';
import { fieldEntries } from '../../kinds/fields/table';
import { expandSeries, type Occurrence } from './rules';
import { ruleOf } from './definition';
import * as repo from './repository';
import type { Membership, SeriesRow } from './repository';

/** Occurrences of the same local date pair up in order: their key survives a change of start time. */
function dayKeys(locals: WallClock[]): Map<WallClock, string> {
  const perDay = new Map<string, number>();
  const keys = new Map<WallClock, string>();
  for (const local of [...locals].sort()) {
    const day = local.slice(0, 10);
    const n = (perDay.get(day) ?? 0) + 1;
    perDay.set(day, n);
    keys.set(local, `${day}#${n}`);
  }
  return keys;
}

/** What every occurrence takes from its series event: its `posts` columns and its `events` columns. */
const COPIED = fieldEntries(EVENT_FIELDS).filter(([, field]) => field.copied);
const COPIED_POST = COPIED.filter(([, field]) => field.table === 'posts' || field.mirrorsPost).map(
  ([column]) => column,
);
const COPIED_EVENT = COPIED.filter(([, field]) => field.table === 'events').map(([column]) => column);

function sharedFields(event: EventRow): { post: Partial<posts.PostValues>; fields: Partial<EventFields> } {
  const values = (columns: string[]) => Object.fromEntries(columns.map((column) => [column, event[column as never]]));
  return { post: values(COPIED_POST), fields: values(COPIED_EVENT) };
}

/** Start and end of an occurrence: the series event's duration (all-day: its number of days). */
function timesOf(
  event: EventRow,
  occurrence: Occurrence,
): Pick<EventFields, 'start_local' | 'end_local' | 'start_utc' | 'end_utc'> {
  const zone = event.timezone;
  if (event.all_day) {
    const days = fromUtc(`${event.end_local.slice(0, 10)} 00:00:00`).diff(
      fromUtc(`${event.start_local.slice(0, 10)} 00:00:00`),
      'days',
    ).days;
    const endDay = fromUtc(occurrence.local).plus({ days }).toFormat('yyyy-MM-dd');
    const start = fromLocal(`${occurrence.local.slice(0, 10)} 00:00:00`, zone);
    const end = fromLocal(`${endDay} 23:59:59`, zone);
    return {
      start_local: formatLocal(start, zone),
      end_local: formatLocal(end, zone),
      start_utc: formatUtc(start),
      end_utc: formatUtc(end),
    };
  }
  const duration = fromUtc(event.end_utc).diff(fromUtc(event.start_utc));
  const start = fromUtc(occurrence.utc);
  const end = start.plus(duration);
  return {
    start_local: occurrence.local,
    end_local: formatLocal(end, zone),
    start_utc: occurrence.utc,
    end_utc: formatUtc(end),
  };
}

/**
 * Makes the occurrences match the rule. `sync` (a series write): occurrences still in the rule keep their ids and
 * take the series event's fields and links, those no longer in it go, missing ones are added; detached ones are
 * left as they are. `extend` (the horizon moved): only missing occurrences are added.
 */
export async function materialise(
  w: Write,
  event: EventRow,
  series: SeriesRow,
  mode: 'sync' | 'extend',
): Promise<void> {
  const { trx } = w;
  const rule = ruleOf(series.rrule);
  const expansion = expandSeries({
    rule,
    start: event.start_local,
    zone: event.timezone,
    allDay: event.all_day,
    rdates: series.rdates,
    exdates: series.exdates,
    horizonUtc: series.open_ended ? (series.horizon_utc ?? undefined) : undefined,
  });
  if (expansion.overflow && !series.open_ended)
    throw invalidParam('recurrence', 'recurrence_too_many', { limit: 1000 });
  const wanted = expansion.occurrences.filter((o) => o.local !== event.start_local);
  const members = (await repo.membersOf(trx, event.id)).filter((m) => m.event_id !== event.id);
  const memberKeys = dayKeys(members.map((m) => m.original_local));
  const wantedKeys = dayKeys(wanted.map((o) => o.local));
  const byKey = new Map(members.map((m) => [memberKeys.get(m.original_local) as string, m]));
  const kept: Array<[Membership, Occurrence]> = [];
  const added: Occurrence[] = [];
  for (const occurrence of wanted) {
    const member = byKey.get(wantedKeys.get(occurrence.local) as string);
    if (!member) added.push(occurrence);
    else if (!member.detached) kept.push([member, occurrence]);
    byKey.delete(wantedKeys.get(occurrence.local) as string);
  }
  const { post, fields } = sharedFields(event);
  const modified = utcNow();
  const gone = mode === 'sync' ? [...byKey.values()].filter((m) => !m.detached).map((m) => m.event_id) : [];
  if (mode === 'sync') {
    // before their status (copied) and links change: the counts move by what they counted before
    await w.countTermsOf([...gone, ...kept.map(([m]) => m.event_id)]);
    await repo.deleteEvents(trx, gone);
    await repo.updateMany(
      trx,
      kept.map(([m]) => m.event_id),
      { ...post, modified_utc: modified },
      fields,
    );
    await moveKept(w, event, kept);
  }
  const severalADay = new Set(wanted.map((o) => o.local.slice(0, 10))).size < wanted.length;
  const slugs = await occurrenceSlugs(trx, event.slug, added, severalADay);
  const newIds = await repo.insertOccurrences(
    w,
    event.id,
    added.map((occurrence, n) => ({
      post: { type: 'event', ...post, modified_utc: modified, slug: slugs[n] } as posts.PostValues,
      event: { ...fields, ...timesOf(event, occurrence), post_parent: event.id } as EventFields,
      originalLocal: occurrence.local,
    })),
  );
  const linked = mode === 'sync' ? [...kept.map(([m]) => m.event_id), ...newIds] : newIds;
  await w.countTermsOf(newIds, { made: true });
  await w.countTermsOf([...linked, event.id]);
  await repo.copyLinks(trx, event.id, linked);
  w.search('posts', [...gone, ...linked]); // occurrences are found by search like any event
  w.change('event', gone, 'deleted');
  w.change(
    'event',
    kept.map(([m]) => m.event_id),
    'updated',
  );
  w.change('event', newIds, 'created');
}

/** Gives kept occurrences the times the rule and the series event's duration give them, where they differ. */
async function moveKept(w: Write, event: EventRow, kept: Array<[Membership, Occurrence]>): Promise<void> {
  const { trx } = w;
  const current = await repo.timesOf(
    trx,
    kept.map(([m]) => m.event_id),
  );
  for (const [member, occurrence] of kept) {
    const times = timesOf(event, occurrence);
    const now = current.get(member.event_id);
    if (
      !now ||
      now.start_utc !== times.start_utc ||
      now.end_utc !== times.end_utc ||
      now.start_local !== times.start_local ||
      now.end_local !== times.end_local
    ) {
      await trx('events').where({ post_id: member.event_id }).update(times);
    }
    if (member.original_local !== occurrence.local) {
      await repo.setOriginal(w, member.event_id, occurrence.local);
    }
  }
}

/** `series-slug-2027-03-04` (and `-1800` when the series has several occurrences a day), unique among events. */
async function occurrenceSlugs(
  trx: Knex.Transaction,
  base: string,
  added: Occurrence[],
  withTime: boolean,
): Promise<string[]> {
  const wanted = added.map((o) =>
    `${base}-${o.local.slice(0, 10)}${withTime ? `-${o.local.slice(11, 13)}${o.local.slice(14, 16)}` : ''}`.slice(
      0,
      200,
    ),
  );
  const taken = await repo.takenSlugs(trx, wanted);
  const slugs: string[] = [];
  for (const slug of wanted) {
    slugs.push(taken.has(slug) ? await posts.freeSlug(trx, 'event', slug) : slug);
    taken.add(slugs[slugs.length - 1]);
  }
  return slugs;
}
