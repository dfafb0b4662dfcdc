/**
 * `import ics` of this site's own UIDs on every engine (docs/decisions.md D88): the feed exported over HTTP
 * and imported back into the same database creates nothing and changes nothing, a calendar app's copy of it neither;
 * an edited copy updates exactly what was edited (series occurrences included) and leaves venue, organizers, terms,
 * website and status alone; the importer's permissions apply; a UID of another site still creates.
 */
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';
import { parseWithIcalJs } from '../support/ical';
import { importIcs, type IcsImportOptions } from '../../src/imports/ics';
import type { Role } from '../../src/users/roles';

const SITE = 'https://calendar.example.org';

interface WireEvent {
  id: number;
  title: string;
  status: string;
  description: string;
  start_date: string;
  end_date: string;
  timezone: string;
  website: string;
  venue: { id: number } | never[];
  organizer: Array<{ id: number }>;
  categories: Array<{ id: number }>;
  tags: Array<{ id: number }>;
  global_id: string;
}

/** The text with folded lines joined, so that a test can edit whole properties. */
const unfold = (text: string) => text.replace(/\r\n[ \t]/g, '');

/** The VEVENT whose SUMMARY is `title`, edited by `edit`. */
function editEvent(text: string, title: string, edit: (vevent: string) => string): string {
  return text.replace(/BEGIN:VEVENT\r\n[\s\S]*?END:VEVENT\r\n/g, (vevent) =>
    vevent.includes(`:${title}\r\n`) ? edit(vevent) : vevent,
  );
}

describe.each(ENGINES)('import ics of our own feed on %s', (engine) => {
  let service: TestService;
  const ids: Record<string, number> = {};
  beforeAll(async () => {
    service = await startService(engine, { SITE_TIMEZONE: 'Europe/Amsterdam', PUBLIC_URL: SITE });
    const create = async (role: Role, body: object) => {
      const res = await http(service)
        .post(`${NS}/events`)
        .auth(...service.as(role))
        .send(body);
      expect(res.status).toBe(201);
      return res.body.id as number;
    };
    ids.concert = await create('administrator', {
      title: 'Own concert',
      description: '<p>First <strong>bold</strong> &amp; more</p>\n<p>Second</p>',
      start_date: '2027-07-01 20:00:00',
      end_date: '2027-07-01 23:00:00',
      timezone: 'Europe/Amsterdam',
      website: 'https://tickets.example.org/own-concert',
      venue: { venue: 'Paradiso', address: 'Weteringschans 6', city: 'Amsterdam', country: 'Netherlands' },
      organizer: [
        { organizer: 'Music Inc', email: 'music@example.org' },
        { organizer: 'Helper Org', email: 'help@example.org' },
      ],
      categories: ['Music', 'Live'],
      tags: ['jazz'],
    });
    ids.allDay = await create('administrator', {
      title: 'Own all day',
      all_day: true,
      start_date: '2027-07-10',
      end_date: '2027-07-12',
      timezone: 'Europe/Amsterdam',
    });
    ids.newYork = await create('administrator', {
      title: 'Own New York',
      start_date: '2027-11-07 00:30:00',
      end_date: '2027-11-07 03:00:00',
      timezone: 'America/New_York',
    });
    ids.offset = await create('administrator', {
      title: 'Own offset',
      start_date: '2027-08-02 10:00:00',
      end_date: '2027-08-02 11:00:00',
      timezone: 'UTC+5:30',
    });
    ids.draft = await create('administrator', {
      title: 'Own draft',
      status: 'draft',
      start_date: '2027-08-03 10:00:00',
      end_date: '2027-08-03 11:00:00',
    });
    ids.byAuthor = await create('author', {
      title: 'Own by an author',
      start_date: '2027-08-04 10:00:00',
      end_date: '2027-08-04 11:00:00',
    });
    ids.series = await create('administrator', {
      title: 'Own series',
      start_date: '2027-10-14 10:00:00',
      end_date: '2027-10-14 11:00:00',
      timezone: 'Europe/Amsterdam',
      recurrence: { rrule: 'FREQ=WEEKLY;COUNT=5', rdates: ['2027-11-20 09:00:00'], exdates: ['2027-10-21 10:00:00'] },
    });
    const occurrences = await http(service)
      .get(`${NS}/events/occurrences/${ids.series}`)
      .auth(...service.as('administrator'))
      .query({ start_date: '2027-10-01', end_date: '2027-12-31' });
    ids.detached = occurrences.body.events.find((o: WireEvent) => o.start_date.startsWith('2027-11-04')).id;
    ids.plain = occurrences.body.events.find((o: WireEvent) => o.start_date.startsWith('2027-10-28')).id;
    await http(service)
      .post(`${NS}/events/${ids.detached}`)
      .auth(...service.as('administrator'))
      .send({ title: 'Own series (moved)', start_date: '2027-11-04 15:00:00', end_date: '2027-11-04 16:00:00' })
      .expect(200);
  }, 60_000);
  afterAll(async () => {
    await service?.close();
  });

  const options = (role: Role = 'administrator', extra: Partial<IcsImportOptions> = {}): IcsImportOptions => ({
    source: `${SITE}${NS}/events/ical`,
    author: { id: service.users[role].id, login: service.users[role].login, role },
    language: 'en',
    ...extra,
  });
  const feed = () =>
    http(service)
      .get(`${NS}/events/ical`)
      .auth(...service.as('administrator'))
      .query({ start_date: '2027-01-01', end_date: '2027-12-31' })
      .buffer(true)
      .then((res) => {
        expect(res.status).toBe(200);
        return res.text;
      });
  const all = async (): Promise<WireEvent[]> => {
    const res = await http(service)
      .get(`${NS}/events`)
      .auth(...service.as('administrator'))
      .query({ per_page: 100, start_date: '2027-01-01', end_date: '2027-12-31', status: 'publish,draft,private' });
    expect(res.status).toBe(200);
    return res.body.events as WireEvent[];
  };
  const event = async (id: number): Promise<WireEvent> => {
    const res = await http(service)
      .get(`${NS}/events/${id}`)
      .auth(...service.as('administrator'));
    expect(res.status).toBe(200);
    return res.body as WireEvent;
  };
  const run = (text: string, opts: IcsImportOptions = options()) =>
    importIcs(service.database.db, service.config, text, opts);

  it('names its events by their global ids, the UIDs the import recognises', async () => {
    const text = await feed();
    const uids = parseWithIcalJs(text).events.map((e) => e.uid);
    expect(uids).toContain(`calendar.example.org?id=${ids.concert}`);
    expect((await event(ids.concert)).global_id).toBe(`calendar.example.org?id=${ids.concert}`);
  });

  it('imports its own feed back: 0 created, every event unchanged, nothing written', async () => {
    const text = await feed();
    const vevents = parseWithIcalJs(text).events.length;
    expect(vevents).toBe(8); // 6 events, the series (one VEVENT with its rule) and its detached occurrence
    const before = await all();
    const summary = await run(text);
    expect(summary).toMatchObject({ created: 0, updated: 0, unchanged: vevents, skipped: [], removed: [] });
    expect(summary.notes).toEqual([
      '8 VEVENT(s) named events of this site by their UIDs: matched in place, never copied',
    ]);
    expect(await all()).toEqual(before);
    expect(await feed()).toBe(text); // same SEQUENCE and stamps: no event was written
  });

  it("imports a calendar app's copy (no X-ALT-DESC, other stamps, times in UTC) as unchanged", async () => {
    const text = await feed();
    const copy = unfold(text)
      .replace(/^X-ALT-DESC[^\r\n]*\r\n/gm, '')
      .replace(/^(DTSTAMP|LAST-MODIFIED):\d{8}T\d{6}Z/gm, '$1:20270901T080000Z')
      .replace(/^SEQUENCE:\d+/gm, 'SEQUENCE:3')
      .replace(/^PRODID:.*$/m, 'PRODID:-//Some Calendar App//EN')
      // the New York event in UTC, as Google writes times
      .replace('DTSTART;TZID=America/New_York:20271107T003000', 'DTSTART:20271107T043000Z')
      .replace('DTEND;TZID=America/New_York:20271107T030000', 'DTEND:20271107T080000Z');
    expect(copy).not.toContain('X-ALT-DESC');
    const summary = await run(copy);
    expect(summary).toMatchObject({ created: 0, updated: 0, unchanged: 8, skipped: [] });
    expect(await feed()).toBe(text);
  });

  it('updates what an edited copy changed, and only that, occurrences of a series included', async () => {
    const before = await event(ids.concert);
    const master = await event(ids.series);
    const plain = await event(ids.plain);
    let text = unfold(await feed());
    text = editEvent(text, 'Own concert', (v) => v.replace('SUMMARY;LANGUAGE=en:Own concert', 'SUMMARY:Own concert!'));
    text = editEvent(text, 'Own New York', (v) =>
      v
        .replace('T003000', 'T013000')
        .replace('DTEND;TZID=America/New_York:20271107T030000', 'DTEND;TZID=America/New_York:20271107T040000'),
    );
    text = editEvent(text, 'Own series (moved)', (v) => v.replace(':Own series (moved)', ':Own series (moved again)'));
    text = editEvent(text, 'Own draft', (v) =>
      v.replace(/^CATEGORIES[^\r\n]*\r\n/m, '').replace('STATUS:TENTATIVE', 'STATUS:CONFIRMED'),
    );

    const dry = await run(text, options('administrator', { dryRun: true }));
    expect(dry).toMatchObject({ created: 0, updated: 3, unchanged: 5, skipped: [] });
    expect((await event(ids.concert)).title).toBe('Own concert');

    const count = (await all()).length;
    const summary = await run(text);
    expect(summary).toMatchObject({ created: 0, updated: 3, unchanged: 5, skipped: [] });
    expect((await all()).length).toBe(count);

    const after = await event(ids.concert);
    expect(after.title).toBe('Own concert!');
    // what the feed only renders stays as stored: the venue, organizers, categories and tags, website, description
    for (const key of ['venue', 'organizer', 'categories', 'tags', 'website', 'description', 'status'] as const)
      expect(after[key]).toEqual(before[key]);
    expect(await event(ids.newYork)).toMatchObject({
      start_date: '2027-11-07 01:30:00',
      end_date: '2027-11-07 04:00:00',
      timezone: 'America/New_York',
    });
    expect((await event(ids.detached)).title).toBe('Own series (moved again)');
    expect(await event(ids.series)).toMatchObject({ title: master.title, start_date: master.start_date });
    expect(await event(ids.plain)).toMatchObject({ title: plain.title, start_date: plain.start_date });
    expect((await event(ids.draft)).status).toBe('draft');
  });

  it("applies the importer's permissions: an author may not edit others' events, and nothing is created", async () => {
    const text = editEvent(unfold(await feed()), 'Own all day', (v) =>
      v.replace(':Own all day\r\n', ':Own all day (by the author)\r\n'),
    );
    const withAuthorsOwn = editEvent(text, 'Own by an author', (v) =>
      v.replace(':Own by an author\r\n', ':Own by an author (edited)\r\n'),
    );
    const summary = await run(withAuthorsOwn, options('author'));
    expect(summary.created).toBe(0);
    expect(summary.updated).toBe(1); // the author's own event
    expect(summary.skipped).toEqual([expect.objectContaining({ uid: `calendar.example.org?id=${ids.allDay}` })]);
    expect((await event(ids.allDay)).title).toBe('Own all day');
    expect((await event(ids.byAuthor)).title).toBe('Own by an author (edited)');
  });

  it('skips a UID naming an event that no longer exists instead of making it again', async () => {
    const gone = await http(service)
      .post(`${NS}/events`)
      .auth(...service.as('administrator'))
      .send({ title: 'Own soon gone', start_date: '2027-09-01 10:00:00', end_date: '2027-09-01 11:00:00' });
    const text = await feed();
    await http(service)
      .delete(`${NS}/events/${gone.body.id}`)
      .query({ force: true })
      .auth(...service.as('administrator'))
      .expect(200);
    const summary = await run(text);
    expect(summary.created).toBe(0);
    expect(summary.skipped).toEqual([
      expect.objectContaining({
        uid: `calendar.example.org?id=${gone.body.id}`,
        reason: `names event ${gone.body.id} of this site, which no longer exists`,
      }),
    ]);
  });

  it('creates events whose UIDs name another site, and takes more names of this site from --site', async () => {
    const text = unfold(await feed());
    const foreign = editEvent(text, 'Own concert!', (v) =>
      v.replace(`UID:calendar.example.org?id=${ids.concert}`, `UID:elsewhere.example.org?id=${ids.concert}`),
    );
    const summary = await run(foreign, options('administrator', { dryRun: true }));
    expect(summary).toMatchObject({ created: 1, updated: 0, unchanged: 7 });

    const intranet = text.replace(/^UID:calendar\.example\.org\?id=/gm, 'UID:Intranet.example.org:8443?id=');
    // another site's feed: every event would be created (the detached occurrence needs its series, which a dry run
    // does not keep)
    expect(await run(intranet, options('administrator', { dryRun: true }))).toMatchObject({
      created: 7,
      skipped: [expect.objectContaining({ reason: expect.stringMatching(/series that was not imported/) })],
    });
    const known = await run(intranet, options('administrator', { sites: ['http://intranet.example.org:8443/'] }));
    expect(known).toMatchObject({ created: 0, updated: 0, unchanged: 8, skipped: [] });

    const created = await run(foreign);
    expect(created.created).toBe(1);
    const copies = (await all()).filter((e) => e.title === 'Own concert!');
    expect(copies).toHaveLength(2);
  });
});
