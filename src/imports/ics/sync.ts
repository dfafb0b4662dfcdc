/**
 * One `import ics` run: VEVENTs written through the event service (validation, sanitising, the permissions of the
 * importing user, one transaction per event together with its mapping row). Events are matched by UID in
 * `import_mappings` (per source), so a re-run updates what changed, leaves the rest, and creates nothing twice. A UID
 * of this site's own feed names its event, which is updated with what changed and never copied (`own.ts`). Bad
 * input (a broken line, an unknown zone, an event without a start, anything the service refuses) is reported with
 * its line and skipped.
 */
import { createHash } from 'node:crypto';
import type ICAL from 'ical.js';
import type { Knex } from 'knex';
import type { Config } from '../../config';
import type { Db, Executor } from '../../db/types';
import { ApiError } from '../../core/errors';
import { message } from '../../i18n/messages';
import { createEvent, deleteEvent, updateEvent, type EventWrite } from '../../resources/events/service';
import { findEvent, type EventRow } from '../../resources/events/repository';
import { membersOf } from '../../resources/series/repository';
import { silentProgress, type Progress } from '../../ops/progress';
import { eventWrite } from './mapping';
import type { IcsImportOptions, ImportSummary } from './options';
import { ownChanges, ownEventId, ownPrefixes } from './own';
import { readCalendar, SkipEvent, type ParsedCalendar } from './parse';
import { localStart, when, type When } from './zones';

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
  const ours = ownPrefixes(config, options.sites);
  let ownCount = 0;
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
      const own = ownEventId(uid, ours);
      if (own !== undefined) {
        ownCount++;
        summary[await writeOwn(db, config, own, vevent, isOverride(item), cal, body, options)]++;
      } else if (isOverride(item)) {
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
  if (ownCount)
    summary.notes.push(`${ownCount} VEVENT(s) named events of this site by their UIDs: matched in place, never copied`);
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

/**
 * A VEVENT of this site's own feed: the event its UID names (for a RECURRENCE-ID, that occurrence of the series it
 * names) gets what changed, in one transaction (rolled back on --dry-run); nothing is created and no mapping kept, so
 * `--sync` never trashes our own events. An event that no longer exists is skipped, not made again.
 */
async function writeOwn(
  db: Db,
  config: Readonly<Config>,
  id: number,
  vevent: ICAL.Component,
  override: boolean,
  cal: ParsedCalendar,
  body: EventWrite,
  options: IcsImportOptions,
): Promise<'updated' | 'unchanged'> {
  let outcome: 'updated' | 'unchanged' = 'unchanged';
  try {
    await db.transaction(async (trx) => {
      const named = await findEvent(trx, id);
      if (!named) throw new SkipEvent(`names event ${id} of this site, which no longer exists`);
      const target = override
        ? await findEvent(trx, (await occurrenceOf(asDb(trx), named, vevent, cal, config.siteTimezone)).occurrenceId)
        : named;
      if (!target) throw new SkipEvent(`names event ${id} of this site, which no longer exists`);
      const changes = ownChanges(target, vevent, body, options);
      if (!Object.keys(changes).length) return;
      await updateEvent({ db: asDb(trx), config }, writerOf(options), target, changes, {
        scope: override ? 'this' : undefined,
      });
      outcome = 'updated';
      if (options.dryRun) throw new DryRun();
    });
  } catch (err) {
    if (!(err instanceof DryRun)) throw err;
  }
  return outcome;
}

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
  return occurrenceOf(db, master, vevent, cal, siteZone);
}

/** The occurrence of the series `master` that a VEVENT's RECURRENCE-ID names. */
async function occurrenceOf(
  db: Db,
  master: EventRow,
  vevent: ICAL.Component,
  cal: ParsedCalendar,
  siteZone: string,
): Promise<{ key: string; occurrenceId: number }> {
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
