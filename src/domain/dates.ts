/**
 * Dates as the plugin reads and writes them (docs/compatibility.md §1.2, §1.3, §4.3, §5.1, §7.2): input parsed like
 * PHP's `strtotime` (locutus), zones, offsets and DST through luxon,
 * abbreviations from the tz database (moment-timezone's copy). Stored zones are IANA names or `UTC±h[:mm]`.
 */
/// <reference path="./locutus.d.ts" />
import { DateTime, FixedOffsetZone, IANAZone, type Zone } from 'luxon';
import strtotime from 'locutus/php/datetime/strtotime';
import moment from 'moment-timezone';
import { now as clockNow } from './clock';

/** 'YYYY-MM-DD HH:MM:SS' */
export type WallClock = string;

const WALL_FORMAT = 'yyyy-MM-dd HH:mm:ss';
const WALL_CLOCK = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const UTC_OFFSET = /^UTC(?:([+-])(\d{1,2})(?::(\d{2}))?)?$/i;
const ZONE_NAME = /^[A-Za-z][\w+-]*(?:\/[\w+-]+)*$/;
const MAX_INPUT_LENGTH = 200;
const DAY_MS = 86_400_000;

/** Minutes east of UTC of 'UTC', 'UTC+5', 'UTC-3:30'; undefined outside WordPress's range, UTC-12 to UTC+14. */
function offsetMinutes(match: RegExpExecArray): number | undefined {
  if (!match[1]) return 0;
  const hours = Number(match[2]);
  const minutes = Number(match[3] ?? 0);
  const total = (match[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
  return minutes < 60 && total >= -12 * 60 && total <= 14 * 60 ? total : undefined;
}

/** The plugin's spelling of an offset zone: 'UTC', 'UTC+5', 'UTC-3:30' (luxon's own name drops the minutes' zero). */
function offsetName(minutes: number): string {
  if (minutes === 0) return 'UTC';
  const abs = Math.abs(minutes);
  const tail = abs % 60 ? `:${String(abs % 60).padStart(2, '0')}` : '';
  return `UTC${minutes < 0 ? '-' : '+'}${Math.floor(abs / 60)}${tail}`;
}

/** The zone to store for a timezone input ('europe/amsterdam' → 'Europe/Amsterdam', 'UTC+05:30' → 'UTC+5:30'). */
export function normaliseTimezone(input: string): string | undefined {
  const offset = UTC_OFFSET.exec(input);
  if (offset) {
    const minutes = offsetMinutes(offset);
    return minutes === undefined ? undefined : offsetName(minutes);
  }
  if (!ZONE_NAME.test(input) || !IANAZone.isValidZone(input)) return undefined;
  // Intl matches case-insensitively and gives the canonical spelling, but it also swaps aliases for other names
  // (Asia/Kolkata → Asia/Calcutta): take its answer only when it is the same name.
  const resolved = new Intl.DateTimeFormat('en-US', { timeZone: input }).resolvedOptions().timeZone;
  return resolved.toLowerCase() === input.toLowerCase() ? resolved : input;
}

/** A luxon zone for a stored zone string; throws a RangeError for a string that is not one. */
export function zoneOf(stored: string): Zone {
  const offset = UTC_OFFSET.exec(stored);
  const minutes = offset ? offsetMinutes(offset) : undefined;
  if (minutes !== undefined) return FixedOffsetZone.instance(minutes);
  const zone = IANAZone.create(stored);
  if (!offset && zone.isValid) return zone;
  throw new RangeError(`Not a time zone: ${JSON.stringify(stored)}`);
}

/**
 * The instant a wall-clock time (given as the UTC millis of the same wall clock) names in `zone`, as PHP reads it:
 * in a DST overlap the earlier instant (the first 02:30 on the night clocks go back); in a DST gap the offset from
 * before the gap, which moves the time forward by the gap (02:30 on the night clocks go forward becomes 03:30).
 * Luxon alone resolves overlaps by the offset in force *today*, so this decides explicitly.
 */
function atWallClock(wallMs: number, zone: Zone): DateTime {
  const before = zone.offset(wallMs - DAY_MS);
  const after = zone.offset(wallMs + DAY_MS);
  const fits = [before, after].map((o) => wallMs - o * 60_000).filter((ts) => zone.offset(ts) * 60_000 === wallMs - ts);
  const ts = fits.length ? Math.min(...fits) : wallMs - before * 60_000;
  return DateTime.fromMillis(ts, { zone });
}

/** The UTC millis of a 'YYYY-MM-DD HH:MM:SS' string read as UTC; throws a RangeError when malformed. */
function wallMillis(wallClock: WallClock): number {
  // native arithmetic (every event of a page renders several of these; Luxon's parse showed in profiles), then a
  // round trip of the fields, which rejects what the calendar lacks ('2025-02-30', '24:00:00') as Luxon did
  const m = WALL_CLOCK.exec(wallClock);
  if (m) {
    const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
    const date = new Date(0);
    date.setUTCFullYear(year, month - 1, day); // years below 100 stay themselves (Date.UTC would add 1900)
    date.setUTCHours(hour, minute, second, 0);
    if (
      date.getUTCFullYear() === year &&
      date.getUTCMonth() === month - 1 &&
      date.getUTCDate() === day &&
      date.getUTCHours() === hour &&
      date.getUTCMinutes() === minute &&
      date.getUTCSeconds() === second
    )
      return date.getTime();
  }
  throw new RangeError(`Not a 'YYYY-MM-DD HH:MM:SS' time: ${JSON.stringify(wallClock)}`);
}

// locutus's strtotime does its calendar arithmetic with the JS Date of the *process* time zone (local getters and
// setters), so its answers would depend on TZ and on that zone's DST gaps. While it runs, `Date` is swapped for this
// subclass whose "local time" is UTC: the result's UTC fields are then the wall-clock time PHP would compute, which we
// place in the wanted zone ourselves. The swap is synchronous, so no other code sees it.
const NativeDate = Date;
let textHadZone = false;

class UtcDate extends NativeDate {
  constructor(...args: unknown[]) {
    // new Date(y, m, d) means local time; here local is UTC (locutus uses it for ISO week dates)
    super(args.length > 1 ? NativeDate.UTC(...(args as [number, number])) : ((args[0] as number) ?? NativeDate.now()));
  }

  /**
   * locutus asks for the offset only when the text named its own zone ('Z', '+02:00', 'EST', '@<ts>'); NaN makes it
   * convert from that zone, so the result is then an absolute instant, and the call tells us so.
   */
  override getTimezoneOffset(): number {
    textHadZone = true;
    return NaN;
  }
}
for (const unit of ['FullYear', 'Month', 'Date', 'Day', 'Hours', 'Minutes', 'Seconds', 'Milliseconds']) {
  const proto = UtcDate.prototype as unknown as Record<string, unknown>;
  const native = NativeDate.prototype as unknown as Record<string, unknown>;
  proto[`get${unit}`] = native[`getUTC${unit}`];
  if (unit !== 'Day') proto[`set${unit}`] = native[`setUTC${unit}`];
}

/** 'next monday' (also 'first', 'second'… monday): PHP means a Monday *after* the base day; locutus allows that day. */
const NEXT_WEEKDAY = new RegExp(
  '\\b(?:next|first|second|third|fourth|fifth|sixth|seventh|eighth?|ninth|tenth|eleventh|twelfth)\\s+' +
    '(?:sunday|monday|tuesday|wednesday|thursday|friday|saturday|sun|mon|tue|wed|thu|fri|sat)',
  'i',
);

/** strtotime with UTC as the "local" zone: seconds, and whether they are an absolute instant (the text had a zone). */
function strtotimeInUtc(text: string, nowSeconds: number): { seconds: number; absolute: boolean } | undefined {
  const global = globalThis as { Date: DateConstructor };
  const saved = global.Date;
  textHadZone = false;
  global.Date = UtcDate as unknown as DateConstructor;
  try {
    const seconds = strtotime(text, nowSeconds);
    return seconds === false || !Number.isFinite(seconds) ? undefined : { seconds, absolute: textHadZone };
  } finally {
    global.Date = saved;
  }
}

/**
 * A date input read as PHP's strtotime reads it, wall-clock in `zone` (a stored zone string; a RangeError if it is
 * not one) and relative to `now`; Unix timestamps and texts with their own offset are absolute. Undefined when
 * unreadable.
 */
export function parseDateInput(input: string | number, zone: string, now: Date = clockNow()): DateTime | undefined {
  const instant = readDateInput(input, zone, now);
  // a wall clock has four-digit years: beyond them (a timestamp of -10^12) no window or stored date can hold it;
  // a year of margin keeps the day's rounding in any zone inside
  const year = instant?.toUTC().year ?? 0;
  return year >= 2 && year <= 9998 ? instant : undefined;
}

function readDateInput(input: string | number, zone: string, now: Date): DateTime | undefined {
  const z = zoneOf(zone);
  const text = String(input).trim();
  if (typeof input === 'number' || /^-?\d+$/.test(text)) {
    // Unix timestamps are instants (docs/decisions.md D14: the plugin reads them as UTC wall-clock times, we do not)
    const seconds = Math.floor(Number(input));
    const dt = Number.isFinite(seconds) ? DateTime.fromSeconds(seconds, { zone: z }) : undefined;
    return dt?.isValid ? dt : undefined;
  }
  // empty, punctuation-only ('.', ',') or overlong text: locutus would answer "now" for the first two
  if (text.length > MAX_INPUT_LENGTH || !/[\p{L}\d]/u.test(text)) return undefined;

  const nowSeconds = Math.floor(now.getTime() / 1000);
  // "now" as the zone's wall clock written in UTC fields, the frame strtotimeInUtc computes in
  const wallNow = DateTime.fromSeconds(nowSeconds, { zone: z }).setZone('utc', { keepLocalTime: true }).toSeconds();
  const parsed = strtotimeInUtc(text, wallNow);
  if (!parsed) return undefined;
  if (!parsed.absolute && NEXT_WEEKDAY.test(text)) {
    // the text without its 'next monday' gives the base day; landing on that very weekday means a week later in PHP
    const base = strtotimeInUtc(text.replace(NEXT_WEEKDAY, ' '), wallNow);
    if (base && (Math.floor(parsed.seconds / 86_400) - Math.floor(base.seconds / 86_400)) % 7 === 0) {
      parsed.seconds += 7 * 86_400;
    }
  }
  let result: DateTime;
  if (parsed.absolute) result = DateTime.fromSeconds(parsed.seconds, { zone: z });
  // 'now' (or any phrase landing on now) keeps the real instant, even in the repeated hour of a DST overlap
  else if (parsed.seconds === wallNow) result = DateTime.fromSeconds(nowSeconds, { zone: z });
  else result = atWallClock(parsed.seconds * 1000, z);
  return result.isValid ? result : undefined;
}

/** Wall-clock 'YYYY-MM-DD HH:MM:SS' of the instant in `zone`. */
export function formatLocal(instant: DateTime, zone: string): WallClock {
  return instant.setZone(zoneOf(zone)).toFormat(WALL_FORMAT);
}

/** 'YYYY-MM-DD HH:MM:SS' in UTC. */
export function formatUtc(instant: DateTime): WallClock {
  return instant.toUTC().toFormat(WALL_FORMAT);
}

/** The instant of a wall-clock time in `zone` (DST rule: see atWallClock). Throws a RangeError when malformed. */
export function fromLocal(wallClock: WallClock, zone: string): DateTime {
  return atWallClock(wallMillis(wallClock), zoneOf(zone));
}

/** The instant of a UTC wall-clock string. Throws a RangeError when malformed. */
export function fromUtc(wallClock: WallClock): DateTime {
  return DateTime.fromMillis(wallMillis(wallClock), { zone: 'utc' });
}

/** The components of a wall-clock string as zero-padded strings (the plugin's date details). */
export function dateDetails(wallClock: WallClock): {
  year: string;
  month: string;
  day: string;
  hour: string;
  minutes: string;
  seconds: string;
} {
  // the format alone, not the calendar: WordPress's '0000-00-00 00:00:00' has details too
  const m = WALL_CLOCK.exec(wallClock);
  if (!m) throw new RangeError(`Not a 'YYYY-MM-DD HH:MM:SS' time: ${JSON.stringify(wallClock)}`);
  return { year: m[1], month: m[2], day: m[3], hour: m[4], minutes: m[5], seconds: m[6] };
}

/**
 * 'CEST', 'EST', 'JST', '-03' for `zone` at that instant, as PHP prints them: the tz database's own abbreviations
 * (Intl knows names only per locale and falls back to 'GMT+9'); an offset zone's own name ('UTC+5').
 */
export function timezoneAbbr(zone: string, at: DateTime): string {
  const z = zoneOf(zone);
  if (z instanceof FixedOffsetZone) return zone;
  const tz = moment.tz.zone(z.name);
  return tz ? tz.abbr(at.toMillis()) : (at.setZone(z).offsetNameShort ?? '');
}

/** ISO 8601 with the zone's offset, to the second: '2025-04-12T09:00:00+02:00' (JSON-LD dates). */
export function isoWithOffset(instant: DateTime, zone: string): string {
  return instant.setZone(zoneOf(zone)).toFormat("yyyy-MM-dd'T'HH:mm:ssZZ");
}

/** 00:00:00 of the instant's calendar day in `zone` (an hour later where midnight falls in a DST gap). */
export function startOfDay(instant: DateTime, zone: string): DateTime {
  return fromLocal(`${instant.setZone(zoneOf(zone)).toFormat('yyyy-MM-dd')} 00:00:00`, zone);
}

/** 23:59:59 of the instant's calendar day in `zone`. */
export function endOfDay(instant: DateTime, zone: string): DateTime {
  return fromLocal(`${instant.setZone(zoneOf(zone)).toFormat('yyyy-MM-dd')} 23:59:59`, zone);
}

/** A date input that names its instant outright: a timestamp, or a calendar date with an optional time and zone. */
const FIXED_DATE_INPUT =
  /^(?:-?\d+|\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?: ?(?:Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?))?)$/i;

/** Whether a date input's instant depends on when it is read ("today", "+1 week", "monday", "10:00"). */
export function dependsOnNow(input: string | number): boolean {
  return typeof input !== 'number' && !FIXED_DATE_INPUT.test(input.trim());
}

/** The first instant (epoch ms) after `at` whose calendar day in `zone` is another: where "today" moves on. */
export function nextDayStart(at: number, zone: string): number {
  return DateTime.fromMillis(at, { zone: zoneOf(zone) })
    .startOf('day')
    .plus({ days: 1 })
    .toMillis();
}
