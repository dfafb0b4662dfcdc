/**
 * Recurrence rules (RFC 5545 §3.3.10), pure: parse and validate a RECUR value, then expand it in an IANA zone.
 * The `rrule` library expands in floating wall-clock time (its zone handling has known DST bugs); each local
 * time is then placed in the event's zone here with luxon: a local time inside a spring-forward gap does not exist
 * and is skipped, not counted (RFC 5545), an ambiguous fall-back time takes the first of its two instants. COUNT
 * and UNTIL are applied here, after placement, so that skipped times do not count.
 */
import { DateTime } from 'luxon';
import { RRule, type Options, type Weekday } from 'rrule';
import { fromLocal, formatLocal, formatUtc, type WallClock } from '../../domain/dates';
import type { MessageKey } from '../../i18n/messages';

export const MAX_OCCURRENCES = 1000;
/**
 * No occurrence is looked for more than this many years after DTSTART: a rule that matches nothing (DAILY in
 * February on the 30th) would otherwise make the library walk day by day to the year 9999 (half a minute).
 */
export const MAX_YEARS = 100;

/** A rule problem: the message key and its values, reported on `recurrence`. */
export class RuleError extends Error {
  constructor(
    readonly key: MessageKey,
    readonly values: Record<string, string | number> = {},
  ) {
    super(`${key} ${JSON.stringify(values)}`);
  }
}

export type Until = { kind: 'date'; lastLocal: WallClock } | { kind: 'utc'; instantUtc: WallClock };

export interface ParsedRule {
  /** The parts as validated, upper-cased, in the order sent (to write the rule back). */
  parts: Array<[string, string]>;
  options: Partial<Options>;
  count?: number;
  until?: Until;
}

const FREQUENCIES: Record<string, number> = {
  YEARLY: RRule.YEARLY,
  MONTHLY: RRule.MONTHLY,
  WEEKLY: RRule.WEEKLY,
  DAILY: RRule.DAILY,
};
const SUB_DAILY = new Set(['HOURLY', 'MINUTELY', 'SECONDLY']);
const DAYS: Record<string, Weekday> = {
  MO: RRule.MO,
  TU: RRule.TU,
  WE: RRule.WE,
  TH: RRule.TH,
  FR: RRule.FR,
  SA: RRule.SA,
  SU: RRule.SU,
};
const KNOWN = [
  'FREQ',
  'INTERVAL',
  'COUNT',
  'UNTIL',
  'BYDAY',
  'BYMONTHDAY',
  'BYMONTH',
  'BYYEARDAY',
  'BYWEEKNO',
  'BYSETPOS',
  'WKST',
];

const bad = (part: string, value: string) => new RuleError('recurrence_value', { part, value });

/** Signed integers within ±max (never 0), comma-separated. */
function integers(part: string, value: string, max: number, signed = true): number[] {
  return value.split(',').map((item) => {
    const n = /^[+-]?\d{1,3}$/.test(item) ? Number(item) : NaN;
    if (!Number.isInteger(n) || n === 0 || Math.abs(n) > max || (!signed && n < 0)) throw bad(part, value);
    return n;
  });
}

function positive(part: string, value: string, max: number): number {
  const n = /^\d{1,6}$/.test(value) ? Number(value) : 0;
  if (n < 1 || n > max) throw bad(part, value);
  return n;
}

function weekdays(value: string, ordinalsAllowed: boolean): Weekday[] {
  return value.split(',').map((item) => {
    const m = /^([+-]?\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)$/.exec(item);
    if (!m) throw bad('BYDAY', value);
    if (m[1] === undefined) return DAYS[m[2]];
    const n = Number(m[1]);
    if (!ordinalsAllowed || n === 0 || Math.abs(n) > 53) throw bad('BYDAY', value);
    return DAYS[m[2]].nth(n);
  });
}

function until(value: string): Until {
  const date = /^(\d{4})(\d{2})(\d{2})$/.exec(value);
  const utc = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  const m = date ?? utc;
  const dt = m && DateTime.utc(+m[1], +m[2], +m[3], +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0));
  if (!dt?.isValid) throw bad('UNTIL', value);
  const text = dt.toFormat('yyyy-MM-dd HH:mm:ss');
  // a date UNTIL keeps the whole local day (an occurrence at 18:00 on that day is included)
  return date ? { kind: 'date', lastLocal: `${text.slice(0, 10)} 23:59:59` } : { kind: 'utc', instantUtc: text };
}

/** Parses and validates a RECUR value; throws a RuleError naming the first problem. */
export function parseRule(text: string): ParsedRule {
  const source = text.trim().replace(/^RRULE:/i, '');
  if (!source) throw new RuleError('recurrence_frequency');
  const parts = source.split(';').map((item): [string, string] => {
    const eq = item.indexOf('=');
    if (eq <= 0 || eq === item.length - 1) throw new RuleError('recurrence_syntax', { value: item.slice(0, 50) });
    return [item.slice(0, eq).toUpperCase(), item.slice(eq + 1).toUpperCase()];
  });
  const seen = new Set<string>();
  for (const [name] of parts) {
    if (!KNOWN.includes(name)) throw new RuleError('recurrence_part', { part: name.slice(0, 30) });
    if (seen.has(name)) throw new RuleError('recurrence_value', { part: name, value: 'twice' });
    seen.add(name);
  }
  const get = (name: string) => parts.find(([n]) => n === name)?.[1];
  const freqName = get('FREQ');
  if (freqName === undefined || SUB_DAILY.has(freqName)) throw new RuleError('recurrence_frequency');
  const freq = FREQUENCIES[freqName];
  if (freq === undefined) throw bad('FREQ', freqName);
  const options: Partial<Options> = { freq };
  const rule: ParsedRule = { parts, options };
  for (const [name, value] of parts) {
    switch (name) {
      case 'INTERVAL':
        options.interval = positive(name, value, 999);
        break;
      case 'COUNT':
        rule.count = positive(name, value, 999_999);
        break;
      case 'UNTIL':
        rule.until = until(value);
        break;
      case 'BYDAY':
        options.byweekday = weekdays(value, freq === RRule.MONTHLY || (freq === RRule.YEARLY && !get('BYWEEKNO')));
        break;
      case 'BYMONTHDAY':
        if (freq === RRule.WEEKLY) throw bad(name, value);
        options.bymonthday = integers(name, value, 31);
        break;
      case 'BYMONTH':
        options.bymonth = integers(name, value, 12, false);
        break;
      case 'BYYEARDAY':
        if (freq !== RRule.YEARLY) throw bad(name, value);
        options.byyearday = integers(name, value, 366);
        break;
      case 'BYWEEKNO':
        if (freq !== RRule.YEARLY) throw bad(name, value);
        options.byweekno = integers(name, value, 53);
        break;
      case 'BYSETPOS':
        options.bysetpos = integers(name, value, 366);
        break;
      case 'WKST':
        if (!DAYS[value]) throw bad(name, value);
        options.wkst = DAYS[value];
        break;
      default:
        break;
    }
  }
  if (rule.count !== undefined && rule.until) throw new RuleError('recurrence_count_until');
  if (options.bysetpos && !['BYDAY', 'BYMONTHDAY', 'BYMONTH', 'BYYEARDAY', 'BYWEEKNO'].some((n) => seen.has(n))) {
    throw bad('BYSETPOS', get('BYSETPOS') as string);
  }
  // a position past the largest set a period can hold selects nothing, ever (and the library would look until 9999)
  if ((options.bysetpos as number[] | undefined)?.some((pos) => Math.abs(pos) > largestSet(freq, options)))
    throw bad('BYSETPOS', get('BYSETPOS') as string);
  if (rule.count !== undefined && rule.count > MAX_OCCURRENCES)
    throw new RuleError('recurrence_too_many', { limit: MAX_OCCURRENCES });
  return rule;
}

/** The most days one period of the rule can hold (an upper bound). */
function largestSet(freq: number, options: Partial<Options>): number {
  const days = (options.byweekday as Weekday[] | undefined) ?? [];
  const monthDays = (options.bymonthday as number[] | undefined)?.length;
  if (freq === RRule.DAILY) return 1;
  if (freq === RRule.WEEKLY) return days.length || 7;
  if (freq === RRule.MONTHLY)
    return Math.min(31, monthDays ?? (days.length ? days.reduce((sum, d) => sum + (d.n ? 1 : 5), 0) : 31));
  return 366;
}

/** The rule written back (RECUR value) with COUNT/UNTIL replaced by `untilUtc` (a split) or kept. */
export function ruleText(rule: ParsedRule, change: { untilUtc?: WallClock; count?: number } = {}): string {
  const kept = rule.parts.filter(
    ([name]) => (change.untilUtc === undefined && change.count === undefined) || (name !== 'COUNT' && name !== 'UNTIL'),
  );
  if (change.untilUtc !== undefined) kept.push(['UNTIL', `${change.untilUtc.replace(/[-:]/g, '').replace(' ', 'T')}Z`]);
  if (change.count !== undefined) kept.push(['COUNT', String(change.count)]);
  return kept.map(([name, value]) => `${name}=${value}`).join(';');
}

export function isBounded(rule: ParsedRule): boolean {
  return rule.count !== undefined || rule.until !== undefined;
}

export interface SeriesInput {
  rule: ParsedRule;
  /** DTSTART: the local wall-clock start of the series event. */
  start: WallClock;
  zone: string;
  allDay: boolean;
  rdates?: WallClock[];
  exdates?: WallClock[];
  /** Occurrences starting after this UTC instant are not produced (the horizon of an open-ended rule). */
  horizonUtc?: WallClock;
  max?: number;
}

export interface Occurrence {
  /** Local wall-clock start, the occurrence's key within its series. */
  local: WallClock;
  utc: WallClock;
  /** 1-based position among the rule's counted instances; 0 for rdates. */
  ordinal: number;
}

export interface Expansion {
  occurrences: Occurrence[];
  /** More occurrences than `max` (a bounded rule: an error; an open-ended one: stop there). */
  overflow: boolean;
  /** The rule has no instance after the last one produced (bounded and fully expanded). */
  complete: boolean;
}

/** The instant of a local time in `zone`, or undefined when the local time falls in a DST gap. */
export function placeInZone(local: WallClock, zone: string): DateTime | undefined {
  const instant = fromLocal(local, zone);
  return formatLocal(instant, zone) === local ? instant : undefined;
}

const floating = (local: WallClock) => new Date(`${local.replace(' ', 'T')}Z`);
const wall = (date: Date) => date.toISOString().slice(0, 19).replace('T', ' ');

/**
 * Whether any day can pass the rule's filters. The library only stops at a produced date past UNTIL, or at the
 * year 9999: a rule no day can match (February 30th, a fifth Monday on the 20th, week 1 in July) would make it
 * walk there period by period, half a minute for a daily rule. The same filters in a yearly rule over one
 * 400-year Gregorian cycle (every weekday, month and leap-year combination) answer in a few milliseconds. The
 * defaults the library derives from DTSTART are pinned first, as it would.
 */
function canMatch(rule: ParsedRule, start: WallClock): boolean {
  const { freq, bymonth, bymonthday, byyearday, byweekno, byweekday, wkst, interval } = rule.options;
  const dtstart = floating(start);
  const weekday = (dtstart.getUTCDay() + 6) % 7; // the library's 0 = Monday
  const days = ([] as Weekday[]).concat((byweekday as Weekday[] | null | undefined) ?? []);
  if (freq === RRule.DAILY && (interval ?? 1) % 7 === 0 && days.length && !days.some((d) => d.weekday === weekday))
    return false;
  const filters: Partial<Options> = { bymonth, bymonthday, byyearday, byweekno, byweekday, wkst };
  if (!bymonthday && !byyearday && !byweekno && !days.length) {
    if (freq === RRule.YEARLY)
      Object.assign(filters, { bymonth: bymonth ?? dtstart.getUTCMonth() + 1, bymonthday: dtstart.getUTCDate() });
    if (freq === RRule.MONTHLY) filters.bymonthday = dtstart.getUTCDate();
    if (freq === RRule.WEEKLY) filters.byweekday = [weekday];
  }
  // ordinals of a monthly rule count within each month, as a yearly rule's do when it names months
  if (freq === RRule.MONTHLY && !bymonth && days.some((d) => d.n))
    filters.bymonth = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
  const oracle = new RRule({
    ...filters,
    freq: RRule.YEARLY,
    interval: 1,
    count: 1,
    dtstart: new Date(Date.UTC(9599, 0, 1)),
    tzid: null,
  });
  return oracle.all().length > 0;
}

/**
 * The last floating time worth expanding to: the horizon or a UTC UNTIL plus the largest UTC offset (14 h), a date
 * UNTIL's last local second, and never more than MAX_YEARS after DTSTART.
 */
function searchEnd(input: SeriesInput): Date {
  const plusOffset = (utc: WallClock) => new Date(floating(utc).getTime() + 14 * 3_600_000);
  const start = floating(input.start);
  const bounds = [
    new Date(Date.UTC(start.getUTCFullYear() + MAX_YEARS, start.getUTCMonth(), start.getUTCDate(), 23, 59, 59)),
  ];
  const { until } = input.rule;
  if (until?.kind === 'date') bounds.push(floating(until.lastLocal));
  if (until?.kind === 'utc') bounds.push(plusOffset(until.instantUtc));
  if (input.horizonUtc !== undefined) bounds.push(plusOffset(input.horizonUtc));
  return new Date(Math.min(...bounds.map((d) => d.getTime())));
}

/** A date or local date-time of an rdate/exdate list, as a wall clock (dates at 00:00:00). */
export function normaliseLocal(value: string): WallClock | undefined {
  const text = value.trim();
  const full = /^\d{4}-\d{2}-\d{2}$/.test(text)
    ? `${text} 00:00:00`
    : /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?$/.test(text)
      ? `${text.replace('T', ' ')}${text.length === 16 ? ':00' : ''}`
      : undefined;
  if (!full || !DateTime.fromFormat(full, 'yyyy-MM-dd HH:mm:ss', { zone: 'utc' }).isValid) return undefined;
  return full;
}

/**
 * The occurrences of a series in start order: the rule's instances (DTSTART's wall clock each time), plus rdates,
 * minus exdates. All-day series compare dates only.
 */
export function expandSeries(input: SeriesInput): Expansion {
  const { rule, zone, allDay } = input;
  const max = input.max ?? MAX_OCCURRENCES;
  const key = (local: WallClock) => (allDay ? local.slice(0, 10) : local);
  const excluded = new Set((input.exdates ?? []).map(key));
  const place = (local: WallClock) => (allDay ? fromLocal(local, zone) : placeInZone(local, zone));
  const found = new Map<string, Occurrence>();
  let overflow = false;
  let complete = true;
  let counted = 0;
  const lastLocal = rule.until?.kind === 'date' ? rule.until.lastLocal : undefined;
  const untilUtc = rule.until?.kind === 'utc' ? rule.until.instantUtc : undefined;
  const expander = new RRule({
    ...rule.options,
    dtstart: floating(input.start),
    count: null,
    until: searchEnd(input),
    tzid: null,
  });
  if (canMatch(rule, input.start))
    expander.all((date) => {
      const local = wall(date);
      if (lastLocal !== undefined && local > lastLocal) return false;
      const instant = place(local);
      if (!instant) return true; // inside a DST gap: skipped, not counted
      const utc = formatUtc(instant);
      if (untilUtc !== undefined && utc > untilUtc) return false;
      if (input.horizonUtc !== undefined && utc > input.horizonUtc) {
        complete = false;
        return false;
      }
      counted += 1;
      if (!excluded.has(key(local))) found.set(key(local), { local, utc, ordinal: counted });
      if (found.size > max) {
        overflow = true;
        complete = false;
        return false;
      }
      return rule.count === undefined || counted < rule.count;
    });
  if (!isBounded(rule) && input.horizonUtc === undefined) throw new RangeError('an open-ended rule needs a horizon');
  for (const rdate of input.rdates ?? []) {
    const instant = fromLocal(rdate, zone);
    if (!excluded.has(key(rdate)) && !found.has(key(rdate)))
      found.set(key(rdate), { local: rdate, utc: formatUtc(instant), ordinal: 0 });
  }
  const occurrences = [...found.values()].sort((a, b) => (a.utc < b.utc ? -1 : a.utc > b.utc ? 1 : 0));
  if (occurrences.length > max) overflow = true;
  return { occurrences: occurrences.slice(0, max), overflow, complete: complete && !overflow };
}
