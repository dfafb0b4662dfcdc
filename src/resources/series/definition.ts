/**
 * A series as stored: the rule, extra and excluded dates and the horizon that a `recurrence` object describes,
 * validated (400 naming `recurrence`).
 */
import { DateTime } from 'luxon';
import type { Config } from '../../config';
import { now } from '../../domain/clock';
import { formatUtc, type WallClock } from '../../domain/dates';
import { invalidParam } from '../../core/errors';
import { isBounded, normaliseLocal, parseRule, RuleError, ruleText, type ParsedRule } from './rules';
import type { SeriesRow } from './repository';

export type Scope = 'this' | 'following' | 'all';
export interface RecurrenceInput {
  rrule: string;
  rdates?: string[];
  exdates?: string[];
}

export function ruleOf(text: string): ParsedRule {
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
export function horizonFrom(config: Readonly<Config>, at: Date = now()): WallClock {
  return formatUtc(DateTime.fromJSDate(at, { zone: 'utc' }).plus({ months: config.recurrenceHorizonMonths, days: 2 }));
}

/** The series row a `recurrence` object describes (validated; 400 naming `recurrence`). */
export function seriesFrom(config: Readonly<Config>, eventId: number, input: RecurrenceInput): SeriesRow {
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
