/** A VEVENT → the event service's write: times, texts, venue, organizers, categories, recurrence, status. */
import type ICAL from 'ical.js';
import { unescapeText } from '../../domain/icalendar';
import type { EventWrite } from '../../resources/events/service';
import { EVENT_FIELDS } from '../../kinds/fields/events';
import { fieldEntries } from '../../kinds/fields/table';
import type { IcsImportOptions } from './options';
import { SkipEvent, type ParsedCalendar } from './parse';
import { local, localStarts, resolveZone, when } from './zones';

/** The event service's write for a VEVENT (what the API would be sent). */
export function eventWrite(
  vevent: ICAL.Component,
  cal: ParsedCalendar,
  options: IcsImportOptions,
  siteZone: string,
): EventWrite {
  const start = when(vevent, 'dtstart', cal, siteZone);
  if (!start) throw new SkipEvent('event without a start (DTSTART)');
  let end = when(vevent, 'dtend', cal, siteZone);
  const duration = vevent.getFirstPropertyValue('duration') as ICAL.Duration | null;
  if (!end && duration) end = { ...start, instant: start.instant.plus({ seconds: duration.toSeconds() }) };
  const body: EventWrite = { title: String(vevent.getFirstPropertyValue('summary') ?? '').trim() || '(untitled)' };
  if (start.allDay) {
    // DTEND is exclusive
    const lastDay = end && end.instant > start.instant ? end.instant.minus({ days: 1 }) : start.instant;
    Object.assign(body, {
      all_day: true,
      start_date: start.instant.toISODate(),
      end_date: lastDay.toISODate(),
      timezone: cal.calendarZone ? (resolveZone(cal.calendarZone) ?? '') : '',
    });
  } else {
    const endInstant = end?.instant ?? start.instant;
    Object.assign(body, {
      start_date: local(start.instant, start.zone),
      end_date: local(endInstant, start.zone),
      timezone: start.zone,
    });
  }
  const html = altDescription(vevent);
  const plain = vevent.getFirstPropertyValue('description');
  if (html) body.description = html;
  else if (plain) body.description = textToHtml(String(plain));
  const url = vevent.getFirstPropertyValue('url');
  if (url && /^https?:\/\//i.test(String(url))) body.website = String(url);
  const venue = venueOf(vevent);
  if (venue) body.venue = venue as EventWrite['venue'];
  const organizers = organizersOf(vevent);
  if (organizers.length) body.organizer = organizers as EventWrite['organizer'];
  const categories = vevent
    .getAllProperties('categories')
    .flatMap((p) => p.getValues().map((v) => String(v).trim()))
    .filter(Boolean);
  if (options.category) categories.push(options.category);
  if (categories.length) body.categories = [...new Set(categories)];
  const rule = vevent.getFirstPropertyValue('rrule') as ICAL.Recur | null;
  if (rule) {
    body.recurrence = {
      rrule: rule.toString(),
      rdates: localStarts(vevent, 'rdate', start, cal, siteZone),
      exdates: localStarts(vevent, 'exdate', start, cal, siteZone),
    } as EventWrite['recurrence'];
  }
  Object.assign(body, plainTexts(vevent));
  const privateClass = String(vevent.getFirstPropertyValue('class') ?? '').toUpperCase() === 'PRIVATE';
  body.status = (options.status ?? (privateClass ? 'private' : 'publish')) as EventWrite['status'];
  return body;
}

/** The field table's plain text fields that name the iCalendar property holding them, by wire name. */
const PLAIN_PROPERTIES = fieldEntries(EVENT_FIELDS).flatMap(([, field]) =>
  field.written === 'text' && field.ics && field.wire ? [[field.wire, field.ics] as const] : [],
);

/** Their values in the VEVENT; ical.js hands an `X-` property over as written, its TEXT escapes still in. */
function plainTexts(vevent: ICAL.Component): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [wire, property] of PLAIN_PROPERTIES) {
    const value = vevent.getFirstPropertyValue(property);
    if (value) values[wire] = property.startsWith('x-') ? unescapeText(String(value)) : String(value);
  }
  return values;
}

/** X-ALT-DESC's HTML, its TEXT escapes undone: ical.js hands a property it does not know over as written. */
function altDescription(vevent: ICAL.Component): string | undefined {
  const alt = vevent
    .getAllProperties('x-alt-desc')
    .find((p) => String(p.getParameter('fmttype') ?? '').toLowerCase() === 'text/html');
  const value = alt?.getFirstValue();
  return value ? unescapeText(String(value)) : undefined;
}

function textToHtml(text: string): string {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return escaped
    .split(/\n{2,}/)
    .map((para) => `<p>${para.replace(/\n/g, '<br />')}</p>`)
    .join('');
}

/** LOCATION "Name, address…" and GEO into an inline venue (the service reuses an identical existing venue). */
function venueOf(vevent: ICAL.Component): Record<string, unknown> | undefined {
  const location = String(vevent.getFirstPropertyValue('location') ?? '').trim();
  if (!location) return undefined;
  const [name, ...rest] = location.split(/\s*[,\n]\s*/); // Apple writes the name on a line of its own
  const venue: Record<string, unknown> = { venue: name };
  if (rest.length) venue.address = rest.join(', ');
  const geo = vevent.getFirstPropertyValue('geo') as number[] | null;
  if (geo && geo.length === 2 && geo.every((n) => Number.isFinite(Number(n))))
    Object.assign(venue, { geo_lat: Number(geo[0]), geo_lng: Number(geo[1]) });
  return venue;
}

/** ORGANIZER (CN, mailto:) first, then CONTACTs written as "Name <email>" or "Name". */
function organizersOf(vevent: ICAL.Component): Array<Record<string, string>> {
  const found: Array<Record<string, string>> = [];
  const organizer = vevent.getFirstProperty('organizer');
  if (organizer) {
    const value = String(organizer.getFirstValue() ?? '');
    const email = /^mailto:/i.test(value) ? decodeURIComponent(value.slice(7)) : '';
    const name = String(organizer.getParameter('cn') ?? '') || email;
    if (name) found.push(email ? { organizer: name, email } : { organizer: name });
  }
  for (const contact of vevent.getAllProperties('contact')) {
    const match = /^(.*?)\s*<([^>]+@[^>]+)>$/.exec(String(contact.getFirstValue() ?? '').trim());
    const name = match ? match[1] : String(contact.getFirstValue() ?? '').trim();
    if (name) found.push(match ? { organizer: name, email: match[2] } : { organizer: name });
  }
  return found;
}
