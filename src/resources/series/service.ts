/**
 * Recurring series (issue 11): materialising occurrences as events of their own, the scopes of updates and deletes
 * (`this`, `following`, `all`), and the horizon of open-ended rules. The event service calls these entry points
 * inside its own transaction, so a series and all its occurrences are written together.
 */
import type { Knex } from 'knex';
import { DateTime } from 'luxon';
import type { Config } from '../../config';
import type { Db, Executor } from '../../db/knex';
import { lockFor, transactionWithRetry, utcNow } from '../../db/dialect';
import { now } from '../../domain/clock';
import { formatLocal, formatUtc, fromLocal, fromUtc, type WallClock } from '../../domain/dates';
import { invalidParam } from '../../http/errors';
import * as posts from '../posts/repository';
import type { EventFields, EventRow } from '../events/repository';
import { findEvent } from '../events/repository';
import { refreshCounts, termIdsOfPosts } from '../terms/repository';
import {
  expandSeries,
  isBounded,
  normaliseLocal,
  parseRule,
  RuleError,
  ruleText,
  type Occurrence,
  type ParsedRule,
} from './rules';
import { syncSearch } from '../../search/documents';
import { recordChanges } from '../../integrations/outbox';
import * as repo from './repository';
import type { Membership, SeriesRow } from './repository';

export type Scope = 'this' | 'following' | 'all';
export interface RecurrenceInput {
  rrule: string;
  rdates?: string[];
  exdates?: string[];
}

/** What a write to an event means for its series. */
export type Plan =
  | { kind: 'single' }
  | { kind: 'this'; membership: Membership }
  | { kind: 'following'; membership: Membership }
  | { kind: 'all'; seriesId: number };

/** `this` is the default on a later occurrence, `all` on the series event; `this` on the series event is refused. */
export async function planFor(trx: Knex.Transaction, eventId: number, scope: Scope | undefined): Promise<Plan> {
  const membership = await repo.membershipOf(trx, eventId);
  if (!membership) return { kind: 'single' };
  await lockFor(trx, `series:${membership.series_id}`); // one write per series at a time, across nodes
  const first = membership.series_id === eventId;
  const chosen = scope ?? (first ? 'all' : 'this');
  if (first && chosen === 'this') throw invalidParam('recurrence_scope', 'recurrence_scope_first');
  if (chosen === 'all' || first) return { kind: 'all', seriesId: membership.series_id };
  return { kind: chosen, membership };
}

function ruleOf(text: string): ParsedRule {
  try {
    return parseRule(text);
  } catch (err) {
    if (err instanceof RuleError) throw invalidParam('recurrence', err.key, err.values);
    throw err;
  }
}

function localList(values: string[] | undefined): WallClock[] {
  return [
    ...new Set(
      (values ?? []).map((value) => {
        const local = normaliseLocal(String(value));
        if (!local) throw invalidParam('recurrence', 'recurrence_date');
        return local;
      }),
    ),
  ].sort();
}

/**
 * How far open-ended rules are materialised: RECURRENCE_HORIZON_MONTHS ahead, plus two days so that the default
 * list window (to the end of that day in the site's zone) never asks past it.
 */
function horizonFrom(config: Readonly<Config>, at: Date = now()): WallClock {
  return formatUtc(DateTime.fromJSDate(at, { zone: 'utc' }).plus({ months: config.recurrenceHorizonMonths, days: 2 }));
}

/** The series row a `recurrence` object describes (validated; 400 naming `recurrence`). */
function seriesFrom(config: Readonly<Config>, eventId: number, input: RecurrenceInput): SeriesRow {
  const rule = ruleOf(input.rrule);
  const open = !isBounded(rule);
  return {
    event_id: eventId,
    rrule: ruleText(rule),
    rdates: localList(input.rdates),
    exdates: localList(input.exdates),
    open_ended: open,
    horizon_utc: open ? horizonFrom(config) : null,
  };
}

/** Makes `eventId` a series: its membership, its rule, its occurrences. */
async function startSeries(
  trx: Knex.Transaction,
  config: Readonly<Config>,
  eventId: number,
  input: RecurrenceInput,
): Promise<void> {
  const series = seriesFrom(config, eventId, input);
  const event = (await findEvent(trx, eventId)) as EventRow;
  await repo.saveSeries(trx, series);
  await repo.addMembers(trx, [
    { event_id: eventId, series_id: eventId, original_local: event.start_local, detached: false },
  ]);
  await materialise(trx, event, series, 'sync');
}

/** After an event create: a `recurrence` makes it a series. */
export async function afterCreate(
  trx: Knex.Transaction,
  config: Readonly<Config>,
  eventId: number,
  input: RecurrenceInput | null | undefined,
): Promise<void> {
  if (input) await startSeries(trx, config, eventId, input);
}

/** Before the fields of an update are written to the target (a `following` split moves the series first). */
export async function beforeUpdate(
  trx: Knex.Transaction,
  config: Readonly<Config>,
  plan: Plan,
  input: RecurrenceInput | null | undefined,
): Promise<void> {
  if (plan.kind === 'this' && input !== undefined) throw invalidParam('recurrence', 'recurrence_scope_this');
  if (plan.kind === 'following') await split(trx, config, plan.membership, input);
}

/** After the fields of an update are written to `targetId` (the series event for `all`). */
export async function afterUpdate(
  trx: Knex.Transaction,
  config: Readonly<Config>,
  plan: Plan,
  targetId: number,
  input: RecurrenceInput | null | undefined,
): Promise<void> {
  if (plan.kind === 'single') {
    if (input) await startSeries(trx, config, targetId, input);
    return;
  }
  if (plan.kind === 'this') {
    await repo.setDetached(trx, targetId);
    return;
  }
  const seriesId = plan.kind === 'all' ? plan.seriesId : targetId;
  if (input === null) {
    await endSeries(trx, seriesId);
    return;
  }
  const current = (await repo.findSeries(trx, seriesId)) as SeriesRow;
  const series = input
    ? { ...seriesFrom(config, seriesId, input), horizon_utc: current.horizon_utc ?? horizonFrom(config) }
    : current;
  if (input) await repo.saveSeries(trx, series);
  const event = (await findEvent(trx, seriesId)) as EventRow;
  await trx('series_occurrences').where({ event_id: seriesId }).update({ original_local: event.start_local });
  await materialise(trx, event, series, 'sync');
}

/** `recurrence: null`: the event is single again and its later occurrences are trashed. */
async function endSeries(trx: Knex.Transaction, seriesId: number): Promise<void> {
  const later = (await repo.membersOf(trx, seriesId)).map((m) => m.event_id).filter((id) => id !== seriesId);
  await trash(trx, later);
  await trx('events').whereIn('post_id', later).update({ post_parent: null });
  await repo.deleteSeries(trx, seriesId);
}

async function trash(trx: Knex.Transaction, ids: number[]): Promise<void> {
  const terms = await termIdsOfPosts(trx, ids);
  await repo.updateMany(trx, ids, { status: 'trash', modified_utc: utcNow() }, { status: 'trash' });
  await refreshCounts(trx, terms);
  await recordChanges(trx, 'event', ids, 'deleted');
}

/**
 * `following` on occurrence O: the old rule ends before O (UNTIL), O becomes the event of a new series with the
 * rest of the rule (a COUNT keeps what is left of it), and the occurrences from O on move to it.
 */
async function split(
  trx: Knex.Transaction,
  config: Readonly<Config>,
  membership: Membership,
  input: RecurrenceInput | null | undefined,
): Promise<void> {
  const old = (await repo.findSeries(trx, membership.series_id, { lock: true })) as SeriesRow;
  const oldEvent = (await findEvent(trx, old.event_id)) as EventRow;
  const rule = ruleOf(old.rrule);
  const at = membership.original_local;
  const cut = formatUtc(fromLocal(at, oldEvent.timezone).minus({ seconds: 1 }));
  const moving = (await repo.membersOf(trx, old.event_id)).filter((m) => m.original_local >= at).map((m) => m.event_id);
  await repo.relink(trx, moving, membership.event_id);
  await recordChanges(
    trx,
    'event',
    moving.filter((id) => id !== membership.event_id),
    'updated',
  );
  await repo.saveSeries(trx, {
    ...old,
    rrule: ruleText(rule, { untilUtc: cut }),
    open_ended: false,
    horizon_utc: null,
    rdates: old.rdates.filter((d) => d < at),
    exdates: old.exdates.filter((d) => d < at),
  });
  let next: SeriesRow;
  if (input) next = seriesFrom(config, membership.event_id, input);
  else {
    let rest: string = old.rrule;
    if (rule.count !== undefined) {
      const before = expandSeries({
        rule,
        start: oldEvent.start_local,
        zone: oldEvent.timezone,
        allDay: oldEvent.all_day,
      }).occurrences.filter((o) => o.ordinal > 0 && o.local < at).length;
      rest = ruleText(rule, { count: Math.max(1, rule.count - before) });
    }
    next = {
      ...old,
      event_id: membership.event_id,
      rrule: rest,
      rdates: old.rdates.filter((d) => d >= at),
      exdates: old.exdates.filter((d) => d >= at),
    };
  }
  await repo.saveSeries(trx, next);
  await trx('series_occurrences').where({ event_id: membership.event_id }).update({ detached: false });
}

/** Deletes with a scope: `this` excludes the occurrence for good, `following` ends the series before it, `all` all. */
export async function deleteScoped(trx: Knex.Transaction, plan: Plan, force: boolean, targetId: number): Promise<void> {
  if (plan.kind === 'single') return;
  if (plan.kind === 'all') {
    // the target itself is trashed or deleted by the caller
    const ids = (await repo.membersOf(trx, plan.seriesId)).map((m) => m.event_id).filter((id) => id !== targetId);
    await removeOccurrences(trx, ids, force);
    return;
  }
  const { membership } = plan;
  const series = (await repo.findSeries(trx, membership.series_id, { lock: true })) as SeriesRow;
  const at = membership.original_local;
  if (plan.kind === 'this') {
    await repo.saveSeries(trx, { ...series, exdates: [...new Set([...series.exdates, at])].sort() });
    await repo.setDetached(trx, membership.event_id);
    return;
  }
  const event = (await findEvent(trx, series.event_id)) as EventRow;
  const cut = formatUtc(fromLocal(at, event.timezone).minus({ seconds: 1 }));
  await repo.saveSeries(trx, {
    ...series,
    rrule: ruleText(ruleOf(series.rrule), { untilUtc: cut }),
    open_ended: false,
    horizon_utc: null,
    rdates: series.rdates.filter((d) => d < at),
  });
  const later = (await repo.membersOf(trx, series.event_id))
    .filter((m) => m.original_local > at)
    .map((m) => m.event_id);
  await removeOccurrences(trx, later, force);
  await trx('series_occurrences').whereIn('event_id', [membership.event_id]).update({ detached: true });
}

/** Trashes (kept out of later regeneration: detached) or permanently deletes occurrences other than the target. */
async function removeOccurrences(trx: Knex.Transaction, ids: number[], force: boolean): Promise<void> {
  if (force) {
    const terms = await termIdsOfPosts(trx, ids);
    await repo.deleteEvents(trx, ids);
    await refreshCounts(trx, terms);
    await syncSearch(trx, 'posts', ids);
    await recordChanges(trx, 'event', ids, 'deleted');
    return;
  }
  await trash(trx, ids);
  for (let i = 0; i < ids.length; i += 500)
    await trx('series_occurrences')
      .whereIn('event_id', ids.slice(i, i + 500))
      .update({ detached: true });
}

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

/** The fields every occurrence takes from its series event. */
function sharedFields(event: EventRow): { post: Partial<posts.PostValues>; fields: Partial<EventFields> } {
  const { title, content, excerpt, password, author_id, status, language, date_utc } = event;
  const {
    timezone,
    all_day,
    cost,
    currency_symbol,
    currency_position,
    website,
    show_map,
    show_map_link,
    hide_from_listings,
    sticky,
    featured,
    venue_id,
    image_id,
  } = event;
  return {
    post: { title, content, excerpt, password, author_id, status, language, date_utc },
    fields: {
      status,
      timezone,
      all_day,
      cost,
      currency_symbol,
      currency_position,
      website,
      show_map,
      show_map_link,
      hide_from_listings,
      sticky,
      featured,
      venue_id,
      image_id,
    },
  };
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
async function materialise(
  trx: Knex.Transaction,
  event: EventRow,
  series: SeriesRow,
  mode: 'sync' | 'extend',
): Promise<void> {
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
    await repo.deleteEvents(trx, gone);
    await repo.updateMany(
      trx,
      kept.map(([m]) => m.event_id),
      { ...post, modified_utc: modified },
      fields,
    );
    await moveKept(trx, event, kept);
  }
  const severalADay = new Set(wanted.map((o) => o.local.slice(0, 10))).size < wanted.length;
  const slugs = await occurrenceSlugs(trx, event.slug, added, severalADay);
  const newIds = await repo.insertOccurrences(
    trx,
    event.id,
    added.map((occurrence, n) => ({
      post: { type: 'event', ...post, modified_utc: modified, slug: slugs[n] } as posts.PostValues,
      event: { ...fields, ...timesOf(event, occurrence), post_parent: event.id } as EventFields,
      originalLocal: occurrence.local,
    })),
  );
  const linked = mode === 'sync' ? [...kept.map(([m]) => m.event_id), ...newIds] : newIds;
  const termsBefore = mode === 'sync' ? await termIdsOfPosts(trx, linked) : [];
  await repo.copyLinks(trx, event.id, linked);
  await refreshCounts(trx, [...termsBefore, ...(await termIdsOfPosts(trx, [event.id]))]);
  await syncSearch(trx, 'posts', [...gone, ...linked]); // occurrences are found by search like any event
  await recordChanges(trx, 'event', gone, 'deleted');
  await recordChanges(
    trx,
    'event',
    kept.map(([m]) => m.event_id),
    'updated',
  );
  await recordChanges(trx, 'event', newIds, 'created');
}

/** Gives kept occurrences the times the rule and the series event's duration give them, where they differ. */
async function moveKept(trx: Knex.Transaction, event: EventRow, kept: Array<[Membership, Occurrence]>): Promise<void> {
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
      await trx('series_occurrences').where({ event_id: member.event_id }).update({ original_local: occurrence.local });
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

/** Adds the occurrences of one open-ended series up to `untilUtc` (its own transaction, once per series). */
async function extendSeries(db: Db, seriesId: number, untilUtc: WallClock): Promise<void> {
  await transactionWithRetry(db, async (trx) => {
    await lockFor(trx, `series:${seriesId}`);
    const series = await repo.findSeries(trx, seriesId, { lock: true });
    const event = await findEvent(trx, seriesId);
    if (!series?.open_ended || !event || (series.horizon_utc ?? '') >= untilUtc) return;
    const extended = { ...series, horizon_utc: untilUtc };
    await materialise(trx, event, extended, 'extend');
    await repo.saveSeries(trx, extended);
  });
}

/** Extends every open-ended series materialised short of `untilUtc` (a list asking past the horizon). */
export async function ensureHorizon(db: Db, config: Readonly<Config>, untilUtc: WallClock | undefined): Promise<void> {
  if (!untilUtc) return;
  const target = [untilUtc, horizonFrom(config)].sort()[1];
  for (const id of await repo.seriesShortOf(db, untilUtc)) await extendSeries(db, id, target);
}

/**
 * The daily extension: whichever node first finds the lease older than a day takes it (a row lock on PostgreSQL,
 * the single writer on SQLite) and extends every horizon to now + RECURRENCE_HORIZON_MONTHS. Answers whether it ran.
 */
export async function extendHorizons(db: Db, config: Readonly<Config>): Promise<boolean> {
  const at = now();
  const taken = await db.transaction((trx) =>
    repo.takeLease(trx, formatUtc(DateTime.fromJSDate(at)), formatUtc(DateTime.fromJSDate(at).minus({ days: 1 }))),
  );
  if (!taken) return false;
  const target = horizonFrom(config, at);
  for (const id of await repo.seriesShortOf(db, target, 100_000)) await extendSeries(db, id, target);
  return true;
}

/**
 * For the metrics: how far (seconds) the least-extended open-ended series falls short of the horizon it should
 * reach now (0 without any; the daily extension keeps it under a day), and the time since that extension last ran.
 */
export async function horizonLag(
  db: Executor,
  config: Readonly<Config>,
): Promise<{ lagSeconds: number; sinceExtensionSeconds: number }> {
  const { earliestHorizon, extendedAt } = await repo.horizonStatus(db);
  const at = now();
  const seconds = (wall: WallClock) => DateTime.fromSQL(wall, { zone: 'utc' }).toMillis() / 1000;
  return {
    lagSeconds: earliestHorizon ? Math.max(0, seconds(horizonFrom(config, at)) - seconds(earliestHorizon)) : 0,
    sinceExtensionSeconds: extendedAt ? Math.max(0, at.getTime() / 1000 - seconds(extendedAt)) : 0,
  };
}

/** Runs `extendHorizons` every hour (it does the work at most once a day across nodes). */
export function startHorizonJob(db: Db, config: Readonly<Config>, onError: (err: unknown) => void): () => void {
  const run = () => {
    extendHorizons(db, config).catch(onError);
  };
  const timer = setInterval(run, 3_600_000);
  timer.unref();
  setImmediate(run);
  return () => clearInterval(timer);
}

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
