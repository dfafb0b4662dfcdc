/**
 * `import ics` on every engine: our own feed round-trips through a second service (fetched over HTTP from
 * 127.0.0.1, which needs --allow-private), three files mimicking Google, Outlook and Apple exports import with their
 * zones, venues, organizers and categories, bad events are reported with their line, re-runs match by UID, --sync
 * trashes what left the feed, --dry-run writes nothing, and the --author's permissions apply.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';
import { parseWithIcalJs, type ParsedEvent } from '../support/ical';
import { importIcs, type IcsImportOptions } from '../../src/imports/ics';
import { readSource } from '../../src/imports/source';
import type { Role } from '../../src/users/roles';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'ical');
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');

interface WireEvent {
  id: number;
  title: string;
  status: string;
  description: string;
  all_day: boolean;
  start_date: string;
  end_date: string;
  utc_start_date: string;
  utc_end_date: string;
  timezone: string;
  website: string;
  venue: { venue: string; address?: string; geo_lat?: number; geo_lng?: number } | never[];
  organizer: Array<{ organizer: string; email: string }>;
  categories: Array<{ name: string }>;
}

describe.each(ENGINES)('import ics on %s', (engine) => {
  let source: TestService;
  let target: TestService;
  beforeAll(async () => {
    [source, target] = await Promise.all([
      startService(engine, { SITE_TIMEZONE: 'Europe/Amsterdam' }),
      startService(engine, { SITE_TIMEZONE: 'Europe/Amsterdam' }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([source?.close(), target?.close()]);
  });

  const caller = (service: TestService, role: Role = 'administrator') => ({
    id: service.users[role].id,
    login: service.users[role].login,
    role,
  });
  const options = (service: TestService, extra: Partial<IcsImportOptions> = {}): IcsImportOptions => ({
    source: 'test',
    author: caller(service),
    language: 'en',
    ...extra,
  });
  const feedUrl = (service: TestService, pathAndQuery: string) =>
    `http://127.0.0.1:${(service.server.address() as { port: number }).port}${NS}${pathAndQuery}`;
  const events = async (service: TestService, query: object = {}): Promise<WireEvent[]> => {
    const res = await http(service)
      .get(`${NS}/events`)
      .auth(...service.as('administrator'))
      .query({ per_page: 50, start_date: '2020-01-01', end_date: '2030-12-31', ...query });
    expect(res.status).toBe(200);
    return res.body.events as WireEvent[];
  };
  const byTitle = (list: WireEvent[], title: string) => list.find((e) => e.title === title) as WireEvent;

  /** What a feed says about its events, without what differs between two sites (UID, URL, stamps, SEQUENCE). */
  const comparable = (events: ParsedEvent[]) =>
    events
      .map((e) => ({
        summary: e.summary,
        description: e.description,
        location: e.location,
        start: e.start,
        end: e.end,
        categories: [...e.categories].sort(),
        organizer: e.organizer?.cn,
        email: e.organizer?.value.startsWith('mailto:') ? e.organizer.value : null,
        status: e.status,
        class: e.class,
        geo: e.geo,
        rrule: e.rrule,
        rdates: e.rdates,
        exdates: e.exdates,
        recurrence_id: e.recurrence_id,
      }))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

  it('round-trips our own feed: export → import into an empty database → export gives the same events', async () => {
    const create = (body: object) =>
      http(source)
        .post(`${NS}/events`)
        .auth(...source.as('administrator'))
        .send(body)
        .expect(201);
    await create({
      title: 'Round trip concert',
      description: '<p>First <strong>bold</strong> &amp; more</p>\n<p>Second</p>',
      start_date: '2027-07-01 20:00:00',
      end_date: '2027-07-01 23:00:00',
      timezone: 'Europe/Amsterdam',
      venue: {
        venue: 'Paradiso',
        address: 'Weteringschans 6',
        city: 'Amsterdam',
        country: 'Netherlands',
        geo_lat: 52.3622,
        geo_lng: 4.8838,
      },
      organizer: [
        { organizer: 'Music Inc', email: 'music@example.org' },
        { organizer: 'Helper Org', email: 'help@example.org' },
      ],
      categories: ['Music', 'Live'],
      tags: ['jazz'],
    });
    await create({
      title: 'Round trip all day',
      all_day: true,
      start_date: '2027-07-10',
      end_date: '2027-07-12',
      timezone: 'Europe/Amsterdam',
    });
    await create({
      title: 'Round trip New York',
      start_date: '2027-11-07 00:30:00',
      end_date: '2027-11-07 03:00:00',
      timezone: 'America/New_York',
    });
    await create({
      title: 'Round trip private',
      status: 'private',
      start_date: '2027-08-01 10:00:00',
      end_date: '2027-08-01 11:00:00',
      timezone: 'Asia/Tokyo',
    });
    await create({
      title: 'Round trip offset',
      start_date: '2027-08-02 10:00:00',
      end_date: '2027-08-02 11:00:00',
      timezone: 'UTC+5:30',
    });
    const series = await create({
      title: 'Round trip series',
      start_date: '2027-10-14 10:00:00',
      end_date: '2027-10-14 11:00:00',
      timezone: 'Europe/Amsterdam',
      recurrence: { rrule: 'FREQ=WEEKLY;COUNT=5', rdates: ['2027-11-20 09:00:00'], exdates: ['2027-10-21 10:00:00'] },
    });
    const occurrences = await http(source)
      .get(`${NS}/events/occurrences/${series.body.id}`)
      .auth(...source.as('administrator'))
      .query({ start_date: '2027-10-01', end_date: '2027-12-31' });
    const detached = occurrences.body.events.find((o: WireEvent) => o.start_date.startsWith('2027-11-04'));
    await http(source)
      .post(`${NS}/events/${detached.id}`)
      .auth(...source.as('administrator'))
      .send({ title: 'Round trip series (moved)', start_date: '2027-11-04 15:00:00', end_date: '2027-11-04 16:00:00' })
      .expect(200);

    const url = feedUrl(source, '/events/ical');
    await expect(readSource(url)).rejects.toThrow(/private address/); // loopback needs --allow-private
    const exported = await http(source)
      .get(`${NS}/events/ical`)
      .auth(...source.as('administrator'))
      .buffer(true)
      .then((r) => r.text);
    const text = await readSource(`${url}`, {
      allowPrivate: true,
      headers: { Authorization: `Basic ${Buffer.from(source.as('administrator').join(':')).toString('base64')}` },
    });
    expect(text).toBe(exported);

    const first = await importIcs(target.database.db, target.config, text, options(target, { source: url }));
    expect(first).toMatchObject({ created: 7, updated: 0, unchanged: 0, skipped: [], removed: [] });
    const again = await http(target)
      .get(`${NS}/events/ical`)
      .auth(...target.as('administrator'))
      .buffer(true)
      .then((r) => r.text);
    expect(comparable(parseWithIcalJs(again).events)).toEqual(comparable(parseWithIcalJs(text).events));
    expect(parseWithIcalJs(again).events.filter((e) => e.rrule)).toHaveLength(1);
    const copied = (await events(target, { search: 'Round trip series' })).map((e) => [e.title, e.utc_start_date]);
    const originals = (await events(source, { search: 'Round trip series' })).map((e) => [e.title, e.utc_start_date]);
    expect(copied).toEqual(originals); // the occurrences, the detached one included

    const second = await importIcs(target.database.db, target.config, text, options(target, { source: url }));
    expect(second).toMatchObject({ created: 0, updated: 0, unchanged: 7, skipped: [] });
    const third = await http(target)
      .get(`${NS}/events/ical`)
      .auth(...target.as('administrator'))
      .buffer(true)
      .then((r) => r.text);
    expect(third).toBe(again); // nothing was written: same SEQUENCE, same stamps
  });

  it('imports a Google export: UTC times in X-WR-TIMEZONE, all-day dates, LOCATION and GEO into venues, organizers', async () => {
    const summary = await importIcs(
      target.database.db,
      target.config,
      fixture('google.ics'),
      options(target, { source: 'google.ics', category: 'Imported' }),
    );
    expect(summary).toMatchObject({ created: 3, skipped: [] });
    const list = await events(target);
    const party = byTitle(list, 'Summer barbecue');
    expect(party).toMatchObject({
      timezone: 'Europe/Berlin',
      start_date: '2027-07-10 19:00:00',
      end_date: '2027-07-10 23:00:00',
      utc_start_date: '2027-07-10 17:00:00',
    });
    expect(party.description).toContain('Bring something to grill.<br />');
    expect(party.venue).toMatchObject({
      venue: 'Tempelhofer Feld',
      address: 'Tempelhofer Damm, 12101 Berlin, Germany',
    });
    expect(party.organizer).toEqual([
      expect.objectContaining({ organizer: 'Anna Schmidt', email: 'anna.schmidt@example.com' }),
    ]);
    expect(party.categories.map((c) => c.name)).toEqual(['Imported']);
    const offsite = byTitle(list, 'Team offsite');
    expect(offsite).toMatchObject({ all_day: true, timezone: 'Europe/Berlin' });
    expect(offsite.start_date.slice(0, 10)).toBe('2027-08-01');
    expect(offsite.end_date.slice(0, 10)).toBe('2027-08-03'); // DTEND 08-04 is exclusive
    expect(offsite.categories.map((c) => c.name).sort()).toEqual(['Imported', 'Team', 'Travel']);
    const night = byTitle(list, 'Night of the clock change');
    expect(night).toMatchObject({ utc_start_date: '2027-10-30 21:00:00', utc_end_date: '2027-10-31 00:00:00' }); // 02:00 happens twice: RFC 5545 takes the first
    expect(night.venue).toMatchObject({ venue: 'Berghain', geo_lat: 52.511, geo_lng: 13.443 });
    // every write of an import is in the audit trail as one
    const audited = await target.database
      .db('audit_log')
      .where({ resource: 'event', operation: 'create' })
      .whereIn('record_id', [party.id, offsite.id, night.id].map(String))
      .select('via', 'login');
    expect(audited).toHaveLength(3);
    expect(audited.every((row: { via: string }) => row.via === 'import')).toBe(true);
  });

  it('imports an Outlook export: Windows zone names, HTML descriptions, CLASS:PRIVATE; an unknown zone is skipped with its line', async () => {
    const text = fixture('outlook.ics');
    const summary = await importIcs(
      target.database.db,
      target.config,
      text,
      options(target, { source: 'outlook.ics' }),
    );
    const marsLine = lineOf(text, 'UID:040000008200E00074C5B7101A82E00800000000MARS', 'BEGIN:VEVENT');
    expect(summary).toMatchObject({
      created: 2,
      skipped: [{ line: marsLine, reason: 'unknown time zone "Mars Standard Time"' }],
    });
    const list = await events(target);
    const review = byTitle(list, 'Quarterly review');
    expect(review).toMatchObject({
      timezone: 'America/Los_Angeles',
      start_date: '2027-09-15 10:00:00',
      utc_start_date: '2027-09-15 17:00:00',
      status: 'publish',
    });
    expect(review.description).toContain('<b>numbers</b>');
    expect(review.description).not.toMatch(/<html|<body/);
    expect(review.organizer[0]).toMatchObject({ organizer: 'Doe, Chris', email: 'chris.doe@contoso.example' });
    const oneToOne = byTitle(list, '1:1 with Sam');
    expect(oneToOne).toMatchObject({
      timezone: 'Europe/Berlin',
      utc_start_date: '2027-11-12 13:00:00',
      status: 'private',
    });
  });

  it('imports an Apple export: folded lines, multi-line LOCATION, a series with a RECURRENCE-ID override; reports broken lines and a missing start', async () => {
    const text = fixture('apple.ics');
    const summary = await importIcs(
      target.database.db,
      target.config,
      text,
      options(target, { source: 'apple.ics', status: 'draft' }),
    );
    expect(summary.created).toBe(3);
    expect(summary.skipped).toEqual([
      { line: lineOf(text, 'this line is not a content line'), reason: expect.stringMatching(/^broken line/) },
      {
        line: lineOf(text, 'UID:0B1C2D3E-NO-START', 'BEGIN:VEVENT'),
        uid: '0B1C2D3E-NO-START',
        reason: 'event without a start (DTSTART)',
      },
    ]);
    const list = await events(target, { status: 'draft' });
    const run = byTitle(list, 'Weekly run');
    const series = await http(target)
      .get(`${NS}/events/occurrences/${run.id}`)
      .auth(...target.as('administrator'))
      .query({ status: 'draft', start_date: '2027-09-01', end_date: '2027-10-31' });
    expect(series.body.events.map((o: WireEvent) => [o.title, o.start_date])).toEqual([
      ['Weekly run', '2027-09-06 10:00:00'],
      ['Weekly run (long one)', '2027-09-13 11:00:00'],
      ['Weekly run', '2027-09-20 10:00:00'],
      ['Weekly run', '2027-09-27 10:00:00'],
    ]);
    expect(run).toMatchObject({
      status: 'draft',
      timezone: 'America/New_York',
      utc_start_date: '2027-09-06 14:00:00',
      utc_end_date: '2027-09-06 15:30:00',
    });
    expect(run.description).toContain(
      'about ten kilometres) at an easy pace — ünïcödé is welcome, and so are 日本語 runners. Bring water.',
    );
    expect(run.venue).toMatchObject({ venue: 'Central Park', address: 'New York, NY, United States' });
    expect(byTitle(list, 'Thanksgiving')).toMatchObject({ all_day: true, timezone: 'America/New_York' });
    expect(await events(target, { search: 'Broken' })).toEqual([]); // never half-written
  });

  it('updates what changed on a re-run, reports events gone from the feed, trashes them with --sync; --dry-run writes nothing', async () => {
    const original = fixture('google.ics');
    const changed = original.replace('SUMMARY:Summer barbecue', 'SUMMARY:Summer barbecue (moved)');
    const before = await events(target);
    const dry = await importIcs(
      target.database.db,
      target.config,
      changed,
      options(target, { source: 'google.ics', category: 'Imported', dryRun: true }),
    );
    expect(dry).toMatchObject({ created: 0, updated: 1, unchanged: 2 });
    expect(await events(target)).toEqual(before);
    const rerun = await importIcs(
      target.database.db,
      target.config,
      changed,
      options(target, { source: 'google.ics', category: 'Imported' }),
    );
    expect(rerun).toMatchObject({ created: 0, updated: 1, unchanged: 2, removed: [] });
    const moved = byTitle(await events(target), 'Summer barbecue (moved)');
    expect(moved.id).toBe(byTitle(before, 'Summer barbecue').id); // the same event, updated

    const withoutNight = changed.replace(
      /BEGIN:VEVENT\r\n(?:(?!END:VEVENT)[\s\S])*?UID:9zyx8wvu7tsr6qpo@google\.com[\s\S]*?END:VEVENT\r\n/,
      '',
    );
    const night = byTitle(before, 'Night of the clock change');
    const reported = await importIcs(
      target.database.db,
      target.config,
      withoutNight,
      options(target, { source: 'google.ics', category: 'Imported' }),
    );
    expect(reported.removed).toEqual([{ uid: '9zyx8wvu7tsr6qpo@google.com', id: night.id, trashed: false }]);
    const synced = await importIcs(
      target.database.db,
      target.config,
      withoutNight,
      options(target, { source: 'google.ics', category: 'Imported', sync: true }),
    );
    expect(synced.removed).toEqual([{ uid: '9zyx8wvu7tsr6qpo@google.com', id: night.id, trashed: true }]);
    expect((await events(target, { status: 'trash' })).map((e) => e.id)).toContain(night.id);
  });

  it('writes with the permissions of --author: a contributor’s events are pending', async () => {
    const text = fixture('google.ics').replace(/@google\.com/g, '@contributor.example');
    const summary = await importIcs(
      target.database.db,
      target.config,
      text,
      options(target, { source: 'contributor', author: caller(target, 'contributor') }),
    );
    expect(summary.created).toBe(3);
    const pending = await events(target, { status: 'pending' });
    expect(pending.map((e) => e.title).sort()).toEqual([
      'Night of the clock change',
      'Summer barbecue',
      'Team offsite',
    ]);
  });

  it('refuses text that is not iCalendar', async () => {
    await expect(importIcs(target.database.db, target.config, '{"events": []}', options(target))).rejects.toThrow(
      /not an iCalendar object/,
    );
  });
});

/** The 1-based line of `needle`, or of the last `before` line above it. */
function lineOf(text: string, needle: string, before?: string): number {
  const lines = text.split(/\r\n|\n/);
  let index = lines.indexOf(needle);
  if (before) while (index > 0 && lines[index] !== before) index--;
  return index + 1;
}
