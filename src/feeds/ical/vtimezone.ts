/** VTIMEZONE components, pure: generated from the IANA data Node carries for the span the events cover. */
import { DateTime, FixedOffsetZone } from 'luxon';
import { zoneOf } from '../../domain/dates';
import { isUtc, text, tzidOf, utc } from '../../domain/icalendar';
import type { CalendarEvent } from './vevent';

/** One VTIMEZONE per zone the timed events use, covering the year before the first through the year after the last. */
export function timezones(events: CalendarEvent[]): string[] {
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
  const two = (n: number) => String(n).padStart(2, '0');
  return `${minutes < 0 ? '-' : '+'}${two(Math.floor(abs / 60))}${two(abs % 60)}`;
}
