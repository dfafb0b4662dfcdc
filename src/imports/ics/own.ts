/**
 * Our own UIDs (docs/decisions.md D88): a feed of this service names each event `host[:port][/path]?id=N`, the
 * event's global id. A VEVENT whose UID names this site is one of our events coming back (our feed imported into its
 * own database, or a calendar app's copy of it), so the import updates that event with what changed and creates
 * nothing. Which sites are "this site": PUBLIC_URL (else the listening address, as request-less URLs are built) and
 * the sites the import is told (`--site`).
 */
import type ICAL from 'ical.js';
import type { Config } from '../../config';
import { fromLocal, fromUtc } from '../../domain/dates';
import { htmlToText } from '../../domain/html';
import type { EventRow } from '../../resources/events/repository';
import type { EventWrite } from '../../resources/events/service';
import { globalPrefix, offlineSite } from '../../core/reader';
import { parseGlobalId } from '../../resources/posts/mapper';
import type { IcsImportOptions } from './options';

/** The global-id prefixes of this site, lower-cased (hosts are case-insensitive). */
export function ownPrefixes(config: Readonly<Config>, sites: readonly string[] = []): Set<string> {
  return new Set([offlineSite(config), ...sites].map((site) => globalPrefix(site.replace(/\/+$/, '')).toLowerCase()));
}

/** The id of the event a UID of this site names, or undefined for a UID of anyone else. */
export function ownEventId(uid: string, prefixes: ReadonlySet<string>): number | undefined {
  const parsed = parseGlobalId(uid.trim());
  return parsed && prefixes.has(parsed.prefix.toLowerCase()) ? parsed.id : undefined;
}

/**
 * Apps that keep only the plain DESCRIPTION (most drop X-ALT-DESC) send our HTML as the text we wrote for it: that is
 * no edit, and must not turn the stored HTML into plain paragraphs.
 */
function samePlainText(vevent: ICAL.Component, current: EventRow): boolean {
  if (vevent.getFirstProperty('x-alt-desc')) return false;
  const squash = (text: string) => text.replace(/\s+/g, ' ').trim();
  return squash(String(vevent.getFirstPropertyValue('description') ?? '')) === squash(htmlToText(current.content));
}

/** The instant of a write's date (a wall clock in its zone, or a date of an all-day event) in ms, for comparing. */
function instantOf(date: unknown, zone: string): number | undefined {
  if (typeof date !== 'string') return undefined;
  const wallClock = /^\d{4}-\d{2}-\d{2}$/.test(date) ? `${date} 00:00:00` : date;
  const instant = fromLocal(wallClock, zone);
  return instant.isValid ? instant.toMillis() : undefined;
}

/**
 * What of a VEVENT's write changes one of our events: the texts and times a calendar app edits, each only when it
 * differs. The rest of the VEVENT is our own rendering of the event (URL is its page, LOCATION its venue on one
 * line, CATEGORIES its categories and tags together, STATUS and CLASS its status), which does not map back without
 * loss, so it is left as stored; `--status` still applies.
 */
export function ownChanges(
  current: EventRow,
  vevent: ICAL.Component,
  body: EventWrite,
  options: IcsImportOptions,
): EventWrite {
  const changes: EventWrite = {};
  if (body.title !== undefined && body.title !== current.title) changes.title = body.title;
  if (body.description !== undefined && body.description !== current.content && !samePlainText(vevent, current))
    changes.description = body.description;
  const allDay = body.all_day === true;
  const sameTimes = allDay
    ? current.all_day &&
      body.start_date === current.start_local.slice(0, 10) &&
      body.end_date === current.end_local.slice(0, 10)
    : !current.all_day &&
      instantOf(body.start_date, String(body.timezone)) === fromUtc(current.start_utc).toMillis() &&
      instantOf(body.end_date, String(body.timezone)) === fromUtc(current.end_utc).toMillis();
  if (!sameTimes) {
    Object.assign(changes, { start_date: body.start_date, end_date: body.end_date, all_day: allDay });
    // an all-day event keeps its zone: the dates are the same days in any
    if (!allDay && body.timezone) changes.timezone = body.timezone;
  }
  if (options.status && options.status !== current.status) changes.status = options.status as EventWrite['status'];
  return changes;
}
