/**
 * `import ics`: VEVENTs of an iCalendar object into events, written through the event service (validation,
 * sanitising, the permissions of the importing user, one transaction per event together with its mapping row).
 * Events are matched by UID in `import_mappings` (per source), so a re-run updates what changed, leaves the rest,
 * and creates nothing twice. Bad input (a broken line, an unknown zone, an event without a start, anything the
 * service refuses) is reported with its line and skipped. Time zones: IANA names, fixed offsets, Windows names
 * (windows-iana's CLDR mapping), prefixed names (`/example.org/Europe/Berlin`), X-LIC-LOCATION, X-WR-TIMEZONE.
 */
import { createHash } from 'node:crypto';
import ICAL from 'ical.js';
import { findIana } from 'windows-iana';
import { DateTime } from 'luxon';
import type { Config, Language } from '../config';
import type { Db, Executor } from '../db/types';
import { normaliseTimezone, zoneOf } from '../domain/dates';
import { ApiError } from '../core/errors';
import { message } from '../i18n/messages';
import type { Caller } from '../users/roles';
import { createEvent, deleteEvent, updateEvent, type EventWrite } from '../resources/events/service';
import { findEvent } from '../resources/events/repository';
import { membersOf } from '../resources/series/repository';
import type { Knex } from 'knex';
import { silentProgress, type Progress } from '../ops/progress';

export interface IcsImportOptions {
  /** Identifies the feed (its URL or file path): UIDs are matched within it, and `--sync` trashes within it. */
  source: string;
  author: Caller;
  /** Status of every imported event (default: `private` for CLASS:PRIVATE, else `publish`). */
  status?: string;
  /** A category (name) added to every imported event. */
  category?: string;
  dryRun?: boolean;
  /** Trash the events a previous run imported from this source that the feed no longer has. */
  sync?: boolean;
  language: Language;
}

export interface ImportSummary {
  created: number;
  updated: number;
  unchanged: number;
  skipped: Array<{ line: number; uid?: string; reason: string }>;
  /** Events imported from this source before that the feed no longer has (trashed with --sync). */
  removed: Array<{ uid: string; id: number; trashed: boolean }>;
  notes: string[];
}

interface Block {
  line: number;
  lines: string[];
}

interface ParsedCalendar {
  calendarZone?: string;
  zones: Map<string, ICAL.Component>;
  events: Array<{ line: number; vevent?: ICAL.Component; error?: string }>;
}

/** Content lines: a name, parameters (quoted values may hold `:`), a colon. */
const CONTENT_LINE = /^[A-Za-z0-9-]+(;[A-Za-z0-9-]+=("[^"]*"|[^";:,]*)(,("[^"]*"|[^";:,]*))*)*:/;

/** Unfolds the text and cuts it into VTIMEZONE and VEVENT blocks, keeping the line each starts on. */
export function readCalendar(text: string): ParsedCalendar {
  const unfolded: Array<{ text: string; line: number }> = [];
  text
    .replace(/^\uFEFF/, '')
    .split(/\r\n|\n|\r/)
    .forEach((raw, i) => {
      if ((raw.startsWith(' ') || raw.startsWith('\t')) && unfolded.length)
        unfolded[unfolded.length - 1].text += raw.slice(1);
      else if (raw !== '') unfolded.push({ text: raw, line: i + 1 });
    });
  const result: ParsedCalendar = { zones: new Map(), events: [] };
  let block: (Block & { kind: string; broken?: number }) | undefined;
  let depth = 0;
  for (const { text: content, line } of unfolded) {
    const upper = content.toUpperCase();
    if (!block) {
      if (upper === 'BEGIN:VEVENT' || upper === 'BEGIN:VTIMEZONE') {
        block = { kind: upper.slice(6), line, lines: [content] };
        depth = 1;
      } else if (upper.startsWith('X-WR-TIMEZONE:'))
        result.calendarZone = content.slice('X-WR-TIMEZONE:'.length).trim();
      continue;
    }
    block.lines.push(content);
    if (!CONTENT_LINE.test(content) && block.broken === undefined) block.broken = line;
    if (upper.startsWith('BEGIN:')) depth++;
    if (upper.startsWith('END:')) depth--;
    if (depth > 0) continue;
    finish(result, block);
    block = undefined;
  }
  if (block) result.events.push({ line: block.line, error: `${block.kind} is never closed` });
  return result;
}

function finish(result: ParsedCalendar, block: Block & { kind: string; broken?: number }): void {
  if (block.broken !== undefined) {
    if (block.kind === 'VEVENT')
      result.events.push({ line: block.broken, error: 'broken line: not "NAME;PARAMS:VALUE"' });
    return;
  }
  try {
    const wrapped = new ICAL.Component(
      ICAL.parse(`BEGIN:VCALENDAR\r\n${block.lines.join('\r\n')}\r\nEND:VCALENDAR\r\n`),
    );
    const component = wrapped.getAllSubcomponents()[0];
    if (block.kind === 'VTIMEZONE') result.zones.set(String(component.getFirstPropertyValue('tzid')), component);
    else result.events.push({ line: block.line, vevent: component });
  } catch (err) {
    if (block.kind === 'VEVENT')
      result.events.push({ line: block.line, error: `unreadable event: ${(err as Error).message}` });
  }
}

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

class SkipEvent extends Error {}

interface When {
  instant: DateTime;
  allDay: boolean;
  zone: string;
}

/** DTSTART or DTEND: the instant and the zone to store it in. */
function when(
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
function localStarts(
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

function localStart(at: When, start: When): string {
  return start.allDay ? `${at.instant.toISODate()} 00:00:00` : local(at.instant, start.zone);
}

const local = (instant: DateTime, zone: string) => instant.setZone(zoneOf(zone)).toFormat('yyyy-LL-dd HH:mm:ss');

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
    const lastDay = end && end.instant > start.instant ? end.instant.minus({ days: 1 }) : start.instant; // DTEND is exclusive
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
  const privateClass = String(vevent.getFirstPropertyValue('class') ?? '').toUpperCase() === 'PRIVATE';
  body.status = (options.status ?? (privateClass ? 'private' : 'publish')) as EventWrite['status'];
  return body;
}

function altDescription(vevent: ICAL.Component): string | undefined {
  const alt = vevent
    .getAllProperties('x-alt-desc')
    .find((p) => String(p.getParameter('fmttype') ?? '').toLowerCase() === 'text/html');
  const value = alt?.getFirstValue();
  return value ? unescapeText(String(value)) : undefined;
}

/** TEXT escapes of a property ical.js does not know (X-ALT-DESC), which it hands over as written. */
function unescapeText(value: string): string {
  return value.replace(/\\([\\;,nN])/g, (_, c: string) => (c === 'n' || c === 'N' ? '\n' : c));
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

class DryRun extends Error {}

/** Imports the text; `source` scopes the UIDs. */
export async function importIcs(
  db: Db,
  config: Readonly<Config>,
  text: string,
  given: IcsImportOptions,
  progress: Progress = silentProgress,
): Promise<ImportSummary> {
  const options = { ...given, author: { ...given.author, via: 'import' as const } }; // the audit trail says so
  const summary: ImportSummary = { created: 0, updated: 0, unchanged: 0, skipped: [], removed: [], notes: [] };
  const cal = readCalendar(text);
  if (!/BEGIN:VCALENDAR/i.test(text.slice(0, 2000))) throw new Error('not an iCalendar object (no BEGIN:VCALENDAR)');
  const source = `ics:${createHash('sha256').update(options.source).digest('hex').slice(0, 32)}`;
  const seen = new Set<string>();
  progress.start('events', cal.events.length);
  // series first: a detached occurrence (RECURRENCE-ID) changes an occurrence its series created
  const isOverride = (item: ParsedCalendar['events'][number]) =>
    Boolean(item.vevent?.getFirstProperty('recurrence-id'));
  for (const item of [...cal.events.filter((e) => !isOverride(e)), ...cal.events.filter(isOverride)]) {
    progress.advance();
    if (item.error || !item.vevent) {
      summary.skipped.push({ line: item.line, reason: item.error ?? 'unreadable event' });
      continue;
    }
    const vevent = item.vevent;
    const uid = String(vevent.getFirstPropertyValue('uid') ?? '') || fallbackUid(vevent);
    try {
      const body = eventWrite(vevent, cal, options, config.siteTimezone);
      if (isOverride(item)) {
        const { key, occurrenceId } = await occurrenceFor(db, source, uid, vevent, cal, config.siteTimezone);
        delete body.recurrence;
        summary[
          await writeOne(
            db,
            config,
            source,
            { kind: 'occurrence', id: `${uid}#${key}`, target: occurrenceId },
            body,
            options,
          )
        ]++;
      } else {
        seen.add(uid);
        summary[await writeOne(db, config, source, { kind: 'event', id: uid }, body, options)]++;
      }
    } catch (err) {
      if (err instanceof SkipEvent) summary.skipped.push({ line: item.line, uid, reason: err.message });
      else if (err instanceof ApiError)
        summary.skipped.push({
          line: item.line,
          uid,
          reason: `${err.code}: ${message(options.language, err.messageKey, err.values)}`,
        });
      else throw err;
    }
  }
  progress.stop();
  await removedFromFeed(db, source, seen, options, summary);
  return summary;
}

function fallbackUid(vevent: ICAL.Component): string {
  const key = `${vevent.getFirstPropertyValue('summary')}|${vevent.getFirstProperty('dtstart')?.toICALString()}`;
  return `no-uid-${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;
}

/** What a VEVENT is mapped as: an event by its UID, or a detached occurrence by UID and original start. */
interface Key {
  kind: 'event' | 'occurrence';
  id: string;
  target?: number;
}

/**
 * One VEVENT and its mapping row in one transaction (rolled back on --dry-run). Counts are per VEVENT: `created`
 * the first time one is imported (for a detached occurrence: first applied to the occurrence its series made).
 */
async function writeOne(
  db: Db,
  config: Readonly<Config>,
  source: string,
  key: Key,
  body: EventWrite,
  options: IcsImportOptions,
): Promise<'created' | 'updated' | 'unchanged'> {
  const fingerprint = createHash('sha256').update(JSON.stringify(body)).digest('hex');
  let outcome: 'created' | 'updated' | 'unchanged' = 'unchanged';
  try {
    await db.transaction(async (trx) => {
      const mapped = await findMapping(trx, source, key.kind, key.id);
      const current = await findEvent(trx, key.target ?? mapped?.local_id ?? 0);
      if (current && mapped?.fingerprint === fingerprint && mapped.local_id === current.id) return;
      let id: number;
      if (current) {
        const scope = key.kind === 'occurrence' ? 'this' : undefined;
        await updateEvent({ db: asDb(trx), config }, writerOf(options), current, body, { scope });
        id = current.id;
      } else {
        id = await createEvent({ db: asDb(trx), config }, writerOf(options), body);
      }
      outcome = mapped && current ? 'updated' : 'created';
      await saveMapping(trx, source, key.kind, key.id, id, fingerprint);
      if (options.dryRun) throw new DryRun();
    });
  } catch (err) {
    if (!(err instanceof DryRun)) throw err;
  }
  return outcome;
}

const asDb = (trx: Knex.Transaction) => trx as unknown as Db; // services open a savepoint inside it

/** The occurrence a RECURRENCE-ID names: its series must have been imported from this source. */
async function occurrenceFor(
  db: Db,
  source: string,
  uid: string,
  vevent: ICAL.Component,
  cal: ParsedCalendar,
  siteZone: string,
): Promise<{ key: string; occurrenceId: number }> {
  const mapped = await findMapping(db, source, 'event', uid);
  const master = mapped && (await findEvent(db, mapped.local_id));
  if (!master) throw new SkipEvent('detached occurrence (RECURRENCE-ID) of a series that was not imported');
  const at = when(vevent, 'recurrence-id', cal, siteZone) as When;
  const key = localStart(at, { instant: at.instant, allDay: master.all_day, zone: master.timezone });
  const member = (await membersOf(db, master.id)).find((m) => m.original_local === key);
  if (!member) throw new SkipEvent(`RECURRENCE-ID ${key} is not an occurrence of its series`);
  return { key, occurrenceId: member.event_id };
}

export interface MappingRow {
  source: string;
  kind: string;
  source_id: string;
  local_id: number;
  fingerprint: string;
}

export async function findMapping(
  db: Executor,
  source: string,
  kind: string,
  sourceId: string,
): Promise<MappingRow | undefined> {
  const row = await db<MappingRow>('import_mappings').where({ source, kind, source_id: sourceId }).first();
  return row && { ...row, local_id: Number(row.local_id) };
}

export async function saveMapping(
  db: Executor,
  source: string,
  kind: string,
  sourceId: string,
  localId: number,
  fingerprint: string,
): Promise<void> {
  await db('import_mappings')
    .insert({ source, kind, source_id: sourceId, local_id: localId, fingerprint })
    .onConflict(['source', 'kind', 'source_id'])
    .merge(['local_id', 'fingerprint']);
}

/** Events this source brought before that the feed no longer has: reported, and trashed with --sync. */
async function removedFromFeed(
  db: Db,
  source: string,
  seen: Set<string>,
  options: IcsImportOptions,
  summary: ImportSummary,
): Promise<void> {
  const rows: MappingRow[] = await db('import_mappings').where({ source, kind: 'event' });
  for (const row of rows) {
    if (seen.has(row.source_id)) continue;
    const event = await findEvent(db, Number(row.local_id));
    if (!event || event.status === 'trash') continue;
    const trash = Boolean(options.sync && !options.dryRun);
    if (trash) await deleteEvent({ db }, options.author, event, { force: false });
    summary.removed.push({ uid: row.source_id, id: event.id, trashed: trash });
  }
}

/** The importer writes as its author, in the import's language. */
function writerOf(options: IcsImportOptions) {
  return { caller: options.author, language: options.language };
}
