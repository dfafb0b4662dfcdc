/**
 * Recurring series in event writes (D54): what a write to an event means for its series (the scopes `this`,
 * `following`, `all`), and the series work of creates, updates and deletes. The event service calls these inside
 * its own write, so a series and all its occurrences are written together. Occurrences are made in
 * `materialise.ts`, open-ended series extended in `horizon.ts`, the wire `recurrence` read in `wire.ts`.
 */
import type { Knex } from 'knex';
import type { Config } from '../../config';
import { lockFor, utcNow } from '../../db/dialect';
import { formatUtc, fromLocal } from '../../domain/dates';
import { invalidParam } from '../../core/errors';
import type { Write } from '../../core/write';
import { findEvent } from '../events/repository';
import type { EventRow } from '../events/repository';
import { expandSeries, ruleText } from './rules';
import { horizonFrom, ruleOf, seriesFrom, type RecurrenceInput, type Scope } from './definition';
import { materialise } from './materialise';
import * as repo from './repository';
import type { Membership, SeriesRow } from './repository';

export type { RecurrenceInput, Scope } from './definition';
export { assertScope } from './wire';

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

/** Makes `eventId` a series: its membership, its rule, its occurrences. */
async function startSeries(w: Write, config: Readonly<Config>, eventId: number, input: RecurrenceInput): Promise<void> {
  const { trx } = w;
  const series = seriesFrom(config, eventId, input);
  const event = (await findEvent(trx, eventId)) as EventRow;
  await repo.saveSeries(w, series);
  await repo.addMembers(w, [
    { event_id: eventId, series_id: eventId, original_local: event.start_local, detached: false },
  ]);
  await materialise(w, event, series, 'sync');
}

/** After an event create: a `recurrence` makes it a series. */
export async function afterCreate(
  w: Write,
  config: Readonly<Config>,
  eventId: number,
  input: RecurrenceInput | null | undefined,
): Promise<void> {
  if (input) await startSeries(w, config, eventId, input);
}

/** Before the fields of an update are written to the target (a `following` split moves the series first). */
export async function beforeUpdate(
  w: Write,
  config: Readonly<Config>,
  plan: Plan,
  input: RecurrenceInput | null | undefined,
): Promise<void> {
  if (plan.kind === 'this' && input !== undefined) throw invalidParam('recurrence', 'recurrence_scope_this');
  if (plan.kind === 'following') await split(w, config, plan.membership, input);
}

/** After the fields of an update are written to `targetId` (the series event for `all`). */
export async function afterUpdate(
  w: Write,
  config: Readonly<Config>,
  plan: Plan,
  targetId: number,
  input: RecurrenceInput | null | undefined,
): Promise<void> {
  const { trx } = w;
  if (plan.kind === 'single') {
    if (input) await startSeries(w, config, targetId, input);
    return;
  }
  if (plan.kind === 'this') {
    await repo.setDetached(w, [targetId]);
    return;
  }
  const seriesId = plan.kind === 'all' ? plan.seriesId : targetId;
  if (input === null) {
    await endSeries(w, seriesId);
    return;
  }
  const current = (await repo.findSeries(trx, seriesId)) as SeriesRow;
  const series = input
    ? { ...seriesFrom(config, seriesId, input), horizon_utc: current.horizon_utc ?? horizonFrom(config) }
    : current;
  if (input) await repo.saveSeries(w, series);
  const event = (await findEvent(trx, seriesId)) as EventRow;
  await repo.setOriginal(w, seriesId, event.start_local);
  await materialise(w, event, series, 'sync');
}

/** `recurrence: null`: the event is single again and its later occurrences are trashed. */
async function endSeries(w: Write, seriesId: number): Promise<void> {
  const { trx } = w;
  const later = (await repo.membersOf(trx, seriesId)).map((m) => m.event_id).filter((id) => id !== seriesId);
  await trash(w, later);
  await trx('events').whereIn('post_id', later).update({ post_parent: null });
  await repo.deleteSeries(w, seriesId);
}

async function trash(w: Write, ids: number[]): Promise<void> {
  await w.countTermsOf(ids);
  await repo.updateMany(w.trx, ids, { status: 'trash', modified_utc: utcNow() }, { status: 'trash' });
  w.change('event', ids, 'deleted');
}

/**
 * `following` on occurrence O: the old rule ends before O (UNTIL), O becomes the event of a new series with the
 * rest of the rule (a COUNT keeps what is left of it), and the occurrences from O on move to it.
 */
async function split(
  w: Write,
  config: Readonly<Config>,
  membership: Membership,
  input: RecurrenceInput | null | undefined,
): Promise<void> {
  const { trx } = w;
  const old = (await repo.findSeries(trx, membership.series_id, { lock: true })) as SeriesRow;
  const oldEvent = (await findEvent(trx, old.event_id)) as EventRow;
  const rule = ruleOf(old.rrule);
  const at = membership.original_local;
  const cut = formatUtc(fromLocal(at, oldEvent.timezone).minus({ seconds: 1 }));
  const moving = (await repo.membersOf(trx, old.event_id)).filter((m) => m.original_local >= at).map((m) => m.event_id);
  await repo.relink(w, moving, membership.event_id);
  await repo.saveSeries(w, {
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
  await repo.saveSeries(w, next);
  await repo.setDetached(w, [membership.event_id], false);
}

/** Deletes with a scope: `this` excludes the occurrence for good, `following` ends the series before it, `all` all. */
export async function deleteScoped(w: Write, plan: Plan, force: boolean, targetId: number): Promise<void> {
  const { trx } = w;
  if (plan.kind === 'single') return;
  if (plan.kind === 'all') {
    // the target itself is trashed or deleted by the caller
    const ids = (await repo.membersOf(trx, plan.seriesId)).map((m) => m.event_id).filter((id) => id !== targetId);
    await removeOccurrences(w, ids, force);
    return;
  }
  const { membership } = plan;
  const series = (await repo.findSeries(trx, membership.series_id, { lock: true })) as SeriesRow;
  const at = membership.original_local;
  if (plan.kind === 'this') {
    await repo.saveSeries(w, { ...series, exdates: [...new Set([...series.exdates, at])].sort() });
    await repo.setDetached(w, [membership.event_id]);
    return;
  }
  const event = (await findEvent(trx, series.event_id)) as EventRow;
  const cut = formatUtc(fromLocal(at, event.timezone).minus({ seconds: 1 }));
  await repo.saveSeries(w, {
    ...series,
    rrule: ruleText(ruleOf(series.rrule), { untilUtc: cut }),
    open_ended: false,
    horizon_utc: null,
    rdates: series.rdates.filter((d) => d < at),
  });
  const later = (await repo.membersOf(trx, series.event_id))
    .filter((m) => m.original_local > at)
    .map((m) => m.event_id);
  await removeOccurrences(w, later, force);
  await repo.setDetached(w, [membership.event_id]);
}

/** Trashes (kept out of later regeneration: detached) or permanently deletes occurrences other than the target. */
async function removeOccurrences(w: Write, ids: number[], force: boolean): Promise<void> {
  const { trx } = w;
  if (force) {
    await w.countTermsOf(ids);
    await repo.deleteEvents(trx, ids);
    w.search('posts', ids);
    w.change('event', ids, 'deleted');
    return;
  }
  await trash(w, ids);
  await repo.setDetached(w, ids);
}
