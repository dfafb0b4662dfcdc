/** One event record → its VEVENT content lines (unfolded), pure. */
import { DateTime } from 'luxon';
import { zoneOf } from '../../domain/dates';
import { htmlToText } from '../../domain/html';
import { isUtc, localStamp, paramValue, text, tzidOf, uri, utc, utcStamp } from '../../domain/icalendar';

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

/** DTSTAMP is the last change, not the time of the request: an unchanged feed is byte-identical (ETag, 304). */
export function renderEvent(e: CalendarEvent): string[] {
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
  if (organizer) {
    const address = organizer.email ? `mailto:${organizer.email}` : organizer.url;
    lines.push(`ORGANIZER;CN=${paramValue(organizer.name)}:${uri(address)}`);
  }
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
