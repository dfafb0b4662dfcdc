/**
 * Time zones and date-time values of a VEVENT: IANA names, fixed offsets, Windows names (windows-iana's CLDR
 * mapping), prefixed names (`/example.org/Europe/Berlin`), X-LIC-LOCATION, X-WR-TIMEZONE, UTC and floating times.
 */
import ICAL from 'ical.js';
import { findIana } from 'windows-iana';
import { DateTime } from 'luxon';
import { normaliseTimezone, zoneOf } from '../../domain/dates';
import { SkipEvent, type ParsedCalendar } from './parse';

/** An IANA zone (or fixed offset) for a TZID, or undefined when none can be found. */
export function resolveZone(tzid: string, zones: Map<string, ICAL.Component> = new Map()): string | undefined {
  const candidates = [
    tzid,
    findIana(tzid as never)?.[0],
    tzid.split('/').slice(-2).join('/'),
    tzid.split('/').slice(-3).join('/'),
    zones.get(tzid)?.getFirstPropertyValue('x-lic-location') as string | undefined,
  ];
  for (const candidate of candidates) {
    const zone = candidate ? normaliseTimezone(candidate) : undefined;
    if (zone) return zone;
  }
  return undefined;
}

export interface When {
  instant: DateTime;
  allDay: boolean;
  zone: string;
}

/** DTSTART or DTEND: the instant and the zone to store it in. */
export function when(
  vevent: ICAL.Component,
  name: 'dtstart' | 'dtend' | 'recurrence-id',
  cal: ParsedCalendar,
  siteZone: string,
): When | undefined {
  const property = vevent.getFirstProperty(name);
  return property ? placed(property, property.getFirstValue() as ICAL.Time, cal, siteZone) : undefined;
}

/** One date or date-time value of a property, placed in its zone (TZID, UTC, or floating). */
function placed(property: ICAL.Property, value: ICAL.Time, cal: ParsedCalendar, siteZone: string): When {
  const fields = {
    year: value.year,
    month: value.month,
    day: value.day,
    hour: value.hour,
    minute: value.minute,
    second: value.second,
  };
  if (value.isDate)
    return {
      instant: DateTime.fromObject({ ...fields, hour: 0, minute: 0, second: 0 }, { zone: 'UTC' }),
      allDay: true,
      zone: 'UTC',
    };
  const tzid = property.getParameter('tzid') as string | undefined;
  const calendarZone = cal.calendarZone ? resolveZone(cal.calendarZone) : undefined;
  if (tzid) {
    const zone = resolveZone(tzid, cal.zones);
    if (!zone) throw new SkipEvent(`unknown time zone "${tzid}"`);
    return { instant: DateTime.fromObject(fields, { zone: zoneOf(zone) }), allDay: false, zone };
  }
  if (value.zone === ICAL.Timezone.utcTimezone) {
    return { instant: DateTime.fromObject(fields, { zone: 'UTC' }), allDay: false, zone: calendarZone ?? 'UTC' };
  }
  const floating = calendarZone ?? siteZone; // a floating time is read in the calendar's zone, else the site's
  return { instant: DateTime.fromObject(fields, { zone: zoneOf(floating) }), allDay: false, zone: floating };
}

/** RDATE or EXDATE values as local starts of the series (wall clocks in its zone; all-day: the date at 00:00). */
export function localStarts(
  vevent: ICAL.Component,
  name: 'rdate' | 'exdate',
  start: When,
  cal: ParsedCalendar,
  siteZone: string,
): string[] {
  return vevent.getAllProperties(name).flatMap((property) =>
    property.getValues().flatMap((value) => {
      if (!(value instanceof ICAL.Time)) throw new SkipEvent(`${name.toUpperCase()} periods are not supported`);
      return [localStart(placed(property, value, cal, siteZone), start)];
    }),
  );
}

export function localStart(at: When, start: When): string {
  return start.allDay ? `${at.instant.toISODate()} 00:00:00` : local(at.instant, start.zone);
}

export const local = (instant: DateTime, zone: string) => instant.setZone(zoneOf(zone)).toFormat('yyyy-LL-dd HH:mm:ss');
