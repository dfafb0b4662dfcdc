/**
 * Records → iCalendar text (RFC 5545), pure: CRLF line ends, lines folded at 75 octets without splitting a UTF-8
 * character, TEXT values escaped and parameter values quoted so that no field can start a line or a property,
 * one VTIMEZONE per zone used, generated from the IANA data Node carries for the span the events cover.
 */
import { DateTime, FixedOffsetZone } from 'luxon';
import { zoneOf } from '../../domain/dates';

/** One event as a feed shows it (times are UTC wall clocks `YYYY-MM-DD HH:MM:SS`, local ones in `timezone`). */
export interface CalendarEvent {
  uid: string;
  sequence: number;
  createdUtc: string;
  modifiedUtc: string;
  startLocal: string;
  endLocal: string;
  startUtc: string;
  endUtc: string;
  timezone: string;
  allDay: boolean;
  title: string;
  /** HTML, as stored. */
  descriptionHtml: string;
  url: string;
  location?: string;
  geo?: { lat: number; lng: number };
  categories: string[];
  /** The first is the ORGANIZER (mailto: with an email, else its page); the others are CONTACTs. */
  organizers: Array<{ name: string; email?: string; url: string }>;
  status: 'CONFIRMED' | 'TENTATIVE' | 'CANCELLED';
  private: boolean;
  /** Language of the texts (LANGUAGE parameter). */
  language: string;
  /** A series: its rule and extra or excluded local starts (wall clocks in `timezone`). */
  recurrence?: { rrule: string; rdates: string[]; exdates: string[] };
  /** A detached occurrence of a series: the local start the rule gave it (RECURRENCE-ID). */
  recurrenceId?: string;
  /** The last instant the VTIMEZONE must cover (a series' last occurrence), when later than `endUtc`. */
  coverUntilUtc?: string;
}

export interface CalendarInfo {
  prodId: string;
  name: string;
  /** X-WR-TIMEZONE: the site's zone. */
  timezone: string;
  refreshMinutes: number;
}

const CRLF = '\r\n';

export function renderCalendar(info: CalendarInfo, events: CalendarEvent[]): string {
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    `PRODID:${text(info.prodId)}`,
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    `X-WR-CALNAME:${text(info.name)}`,
    `X-WR-TIMEZONE:${text(info.timezone)}`,
    `REFRESH-INTERVAL;VALUE=DURATION:PT${info.refreshMinutes}M`,
    `X-PUBLISHED-TTL:PT${info.refreshMinutes}M`,
    ...timezones(events),
    ...events.flatMap(renderEvent),
    'END:VCALENDAR',
  ];
  return lines.map(fold).join(CRLF) + CRLF;
}

/** DTSTAMP is the last change, not the time of the request: an unchanged feed is byte-identical (ETag, 304). */
function renderEvent(e: CalendarEvent): string[] {
  const lang = `;LANGUAGE=${paramValue(e.language)}`;
  const plain = htmlToText(e.descriptionHtml);
  const lines = [
    'BEGIN:VEVENT',
    `UID:${text(e.uid)}`,
    `DTSTAMP:${utcStamp(utc(e.modifiedUtc))}`,
    `CREATED:${utcStamp(utc(e.createdUtc))}`,
    `LAST-MODIFIED:${utcStamp(utc(e.modifiedUtc))}`,
    `SEQUENCE:${e.sequence}`,
    ...times(e),
    ...recurrence(e),
    `SUMMARY${lang}:${text(e.title)}`,
  ];
  if (plain) lines.push(`DESCRIPTION${lang}:${text(plain)}`);
  if (e.descriptionHtml) lines.push(`X-ALT-DESC;FMTTYPE=text/html:${text(e.descriptionHtml)}`);
  if (e.location) lines.push(`LOCATION${lang}:${text(e.location)}`);
  if (e.geo) lines.push(`GEO:${e.geo.lat.toFixed(6)};${e.geo.lng.toFixed(6)}`);
  if (e.url) lines.push(`URL;VALUE=URI:${uri(e.url)}`);
  if (e.categories.length) lines.push(`CATEGORIES${lang}:${e.categories.map(text).join(',')}`);
  const [organizer] = e.organizers; // RFC 5545 allows one ORGANIZER; the others are contacts
  if (organizer)
    lines.push(
      `ORGANIZER;CN=${paramValue(organizer.name)}:${uri(organizer.email ? `mailto:${organizer.email}` : organizer.url)}`,
    );
  for (const other of e.organizers.slice(1))
    lines.push(`CONTACT${lang}:${text(other.email ? `${other.name} <${other.email}>` : other.name)}`);
  lines.push(`STATUS:${e.status}`, `CLASS:${e.private ? 'PRIVATE' : 'PUBLIC'}`, 'TRANSP:OPAQUE', 'END:VEVENT');
  return lines;
}

/** DTSTART/DTEND: dates with an exclusive end for all-day events, else local times with TZID (UTC as `Z`). */
function times(e: CalendarEvent): string[] {
  if (e.allDay) {
    const start = DateTime.fromSQL(e.startLocal, { zone: 'UTC' });
    const lastDay = DateTime.fromSQL(e.endLocal, { zone: 'UTC' }).startOf('day');
    const end = DateTime.max(lastDay.plus({ days: 1 }), start.startOf('day').plus({ days: 1 }));
    return [`DTSTART;VALUE=DATE:${start.toFormat('yyyyLLdd')}`, `DTEND;VALUE=DATE:${end.toFormat('yyyyLLdd')}`];
  }
  if (isUtc(e.timezone)) return [`DTSTART:${utcStamp(utc(e.startUtc))}`, `DTEND:${utcStamp(utc(e.endUtc))}`];
  const tzid = paramValue(tzidOf(e.timezone));
  return [`DTSTART;TZID=${tzid}:${localStamp(e.startLocal)}`, `DTEND;TZID=${tzid}:${localStamp(e.endLocal)}`];
}

/** RRULE, RDATE and EXDATE of a series, RECURRENCE-ID of a detached occurrence, in the form DTSTART has. */
function recurrence(e: CalendarEvent): string[] {
  const lines: string[] = [];
  if (e.recurrence) {
    lines.push(`RRULE:${ruleFor(e)}`);
    if (e.recurrence.rdates.length) lines.push(`RDATE${instants(e, e.recurrence.rdates)}`);
    if (e.recurrence.exdates.length) lines.push(`EXDATE${instants(e, e.recurrence.exdates)}`);
  }
  if (e.recurrenceId) lines.push(`RECURRENCE-ID${instants(e, [e.recurrenceId])}`);
  return lines;
}

/** Parameters and value of local starts: dates, UTC instants or local times with TZID, like DTSTART. */
function instants(e: CalendarEvent, locals: string[]): string {
  if (e.allDay) return `;VALUE=DATE:${locals.map((l) => l.slice(0, 10).replace(/-/g, '')).join(',')}`;
  if (isUtc(e.timezone)) return `:${locals.map((l) => utcStamp(utc(l))).join(',')}`;
  return `;TZID=${paramValue(tzidOf(e.timezone))}:${locals.map(localStamp).join(',')}`;
}

/**
 * The stored rule with UNTIL in the form RFC 5545 requires: a date for all-day series, a UTC instant otherwise
 * (a date UNTIL of a timed series keeps its whole local day).
 */
function ruleFor(e: CalendarEvent): string {
  const rule = e.recurrence?.rrule.replace(/^RRULE:/i, '') ?? '';
  return rule.replace(/UNTIL=(\d{8})(T\d{6}Z)?/i, (_whole, date: string, time?: string) => {
    if (e.allDay) {
      return `UNTIL=${
        time
          ? DateTime.fromFormat(date + time, "yyyyLLdd'T'HHmmss'Z'", { zone: 'UTC' })
              .setZone(zoneOf(e.timezone))
              .toFormat('yyyyLLdd')
          : date
      }`;
    }
    if (time) return `UNTIL=${date}${time}`;
    return `UNTIL=${utcStamp(DateTime.fromFormat(`${date}235959`, 'yyyyLLddHHmmss', { zone: zoneOf(e.timezone) }))}`;
  });
}

const isUtc = (zone: string) => zone === 'UTC' || zone === 'Etc/UTC';

/**
 * The stored zone is the TZID: an IANA name, or a fixed offset (`UTC+5:30`), which is no IANA name (the IANA
 * `Etc/GMT+5` is five hours *behind*), so no reader can mistake it for one.
 */
function tzidOf(zone: string): string {
  return zone;
}

// ---- VTIMEZONE ----

/** One VTIMEZONE per zone the timed events use, covering the year before the first through the year after the last. */
function timezones(events: CalendarEvent[]): string[] {
  const spans = new Map<string, { from: DateTime; to: DateTime }>();
  for (const e of events) {
    if (e.allDay || isUtc(e.timezone)) continue;
    const [from, to] = [
      utc(e.startUtc),
      utc(e.coverUntilUtc && e.coverUntilUtc > e.endUtc ? e.coverUntilUtc : e.endUtc),
    ];
    const span = spans.get(e.timezone);
    spans.set(e.timezone, span ? { from: DateTime.min(span.from, from), to: DateTime.max(span.to, to) } : { from, to });
  }
  return [...spans]
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([zone, span]) => vtimezone(zone, span.from, span.to));
}

export function vtimezone(zone: string, from: DateTime, to: DateTime): string[] {
  const tz = zoneOf(zone);
  const start = from.startOf('year').minus({ years: 1 });
  const end = to.endOf('year').plus({ years: 1 });
  const offsetAt = (at: DateTime) => tz.offset(at.toMillis());
  const lines = ['BEGIN:VTIMEZONE', `TZID:${text(tzidOf(zone))}`];
  const first = offsetAt(start);
  lines.push(...observance(tz instanceof FixedOffsetZone ? false : isDst(zone, start), start, first, first));
  for (const change of transitions(offsetAt, start, end)) {
    lines.push(...observance(isDst(zone, change.at), change.at, change.from, change.to));
  }
  lines.push('END:VTIMEZONE');
  return lines;
}

function isDst(zone: string, at: DateTime): boolean {
  return at.setZone(zone).isInDST;
}

function observance(daylight: boolean, at: DateTime, fromMinutes: number, toMinutes: number): string[] {
  const kind = daylight ? 'DAYLIGHT' : 'STANDARD';
  const local = at.setZone(FixedOffsetZone.instance(fromMinutes)); // onset in the local time before the change
  return [
    `BEGIN:${kind}`,
    `DTSTART:${local.toFormat("yyyyLLdd'T'HHmmss")}`,
    `TZOFFSETFROM:${offset(fromMinutes)}`,
    `TZOFFSETTO:${offset(toMinutes)}`,
    `END:${kind}`,
  ];
}

/** Instants where the offset changes, found day by day and then to the minute by bisection. */
function transitions(offsetAt: (at: DateTime) => number, start: DateTime, end: DateTime) {
  const found: Array<{ at: DateTime; from: number; to: number }> = [];
  let previous = start;
  let before = offsetAt(start);
  for (let at = start.plus({ hours: 12 }); at <= end; at = at.plus({ hours: 12 })) {
    const now = offsetAt(at);
    if (now !== before) {
      let [lo, hi] = [previous.toMillis(), at.toMillis()];
      while (hi - lo > 60_000) {
        const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
        if (offsetAt(DateTime.fromMillis(mid, { zone: 'UTC' })) === before) lo = mid;
        else hi = mid;
      }
      found.push({ at: DateTime.fromMillis(hi, { zone: 'UTC' }), from: before, to: now });
      before = now;
    }
    previous = at;
  }
  return found;
}

function offset(minutes: number): string {
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
}

// ---- values ----

const utc = (wallClock: string) => DateTime.fromSQL(wallClock, { zone: 'UTC' });
const utcStamp = (instant: DateTime) => instant.toUTC().toFormat("yyyyLLdd'T'HHmmss'Z'");
const localStamp = (wallClock: string) => wallClock.replace(/[-:]/g, '').replace(' ', 'T');

/** Characters no value may carry: controls other than TAB (line breaks are escaped before this). */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000a-\u001f\u007f]/g;

/** A TEXT value: backslash, semicolon, comma and line breaks escaped; other controls dropped. */
export function text(value: string): string {
  return value
    .replace(/\r\n?/g, '\n')
    .replace(/[\\;,]/g, (c) => `\\${c}`)
    .replace(/\n/g, '\\n')
    .replace(CONTROLS, '');
}

/** A parameter value: quoted when it needs to be; double quotes (which cannot be escaped) become single ones. */
export function paramValue(value: string): string {
  const clean = value
    .replace(/\r\n?|\n/g, ' ')
    .replace(CONTROLS, '')
    .replace(/"/g, "'");
  return /[;:,]/.test(clean) ? `"${clean}"` : clean;
}

/** A URI value: no controls, no spaces. */
function uri(value: string): string {
  return value
    .replace(/\r\n?|\n/g, '')
    .replace(CONTROLS, '')
    .replace(/ /g, '%20');
}

/** Folds a content line into lines of at most 75 octets, never inside a UTF-8 sequence. */
export function fold(line: string): string {
  if (Buffer.byteLength(line) <= 75) return line;
  const parts: string[] = [];
  let current = '';
  let size = 0;
  let limit = 75;
  for (const char of line) {
    const bytes = Buffer.byteLength(char);
    if (size + bytes > limit) {
      parts.push(current);
      current = '';
      size = 0;
      limit = 74; // continuation lines start with a space
    }
    current += char;
    size += bytes;
  }
  parts.push(current);
  return parts.join(`${CRLF} `);
}

/** Plain text from stored HTML: block ends and `<br>` as line breaks, tags dropped, entities decoded. */
export function htmlToText(html: string): string {
  const withBreaks = html.replace(/<br\s*\/?>/gi, '\n').replace(/<\/(p|div|li|h[1-6]|blockquote|tr)>/gi, '\n');
  const bare = withBreaks.replace(/<[^>]*>/g, '');
  return decodeEntities(bare)
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  '#39': "'",
};

function decodeEntities(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+\d*);/gi, (whole, name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith('#x')) return safeChar(parseInt(lower.slice(2), 16)) ?? whole;
    if (lower.startsWith('#')) return safeChar(parseInt(lower.slice(1), 10)) ?? whole;
    return ENTITIES[lower] ?? whole;
  });
}

function safeChar(code: number): string | undefined {
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}
