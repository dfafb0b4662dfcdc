/**
 * iCalendar feeds through HTTP on every engine: each feed is read by ical.js and by Debian's
 * python3-icalendar and compared with the JSON API, and every event is stored in a radicale CalDAV server, which
 * refuses invalid objects. Zones with DST changes, all-day events, hostile texts, languages, filters, the window, the
 * cap, read rules, SEQUENCE and conditional reads.
 */
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';
import {
  parseWithIcalJs,
  parseWithPython,
  physicalLines,
  splitByUid,
  startRadicale,
  type ParsedEvent,
  type Radicale,
} from '../support/ical';

interface WireEvent {
  id: number;
  global_id: string;
  title: string;
  slug: string;
  url: string;
  all_day: boolean;
  status: string;
  start_date: string;
  end_date: string;
  utc_start_date: string;
  utc_end_date: string;
  timezone: string;
  venue: { venue: string; geo_lat?: number; geo_lng?: number } | never[];
  categories: Array<{ name: string }>;
  tags: Array<{ name: string }>;
  organizer: Array<{ organizer: string; email: string }>;
}

/** iCalendar TEXT has one line break, `\\n`: CR LF and CR arrive as LF. */
const lines = (value: string) => value.replace(/\r\n?/g, '\n');

const HOSTILE = 'Gala\r\nBEGIN:VEVENT\nUID:evil;X-INJECT:1, "quoted" \\ back';

describe.each(ENGINES)('iCalendar export on %s', (engine) => {
  let service: TestService;
  let radicale: Radicale;
  const events: Record<string, WireEvent> = {};
  const base = `${NS}/events`;

  const create = async (key: string, body: object, role: 'administrator' | 'author' = 'administrator') => {
    const res = await http(service)
      .post(base)
      .auth(...service.as(role))
      .send(body);
    expect(res.status).toBe(201);
    events[key] = res.body as WireEvent;
    return events[key];
  };
  const feed = (path: string, query: object = {}, role?: 'administrator') => {
    const req = http(service)
      .get(`${base}${path}`)
      .query(query)
      .buffer(true)
      .parse((res, done) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => done(null, text));
      });
    return role ? req.auth(...service.as(role)) : req;
  };
  const text = async (path: string, query: object = {}, role?: 'administrator') => {
    const res = await feed(path, query, role);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/calendar; charset=utf-8');
    return res.body as string;
  };

  beforeAll(async () => {
    service = await startService(engine, { SITE_TIMEZONE: 'Europe/Amsterdam' });
    radicale = await startRadicale();
    // times around TEST_NOW (2027-06-15): the default window is 30 days back to 12 months ahead
    await create('amsterdam', {
      title: 'Concert in Amsterdam',
      description: '<p>First <b>bold</b> &amp; more</p><p>Second paragraph</p>',
      start_date: '2027-07-01 20:00:00',
      end_date: '2027-07-01 23:00:00',
      timezone: 'Europe/Amsterdam',
      venue: { venue: 'Paradiso', address: 'Weteringschans 6', city: 'Amsterdam', country: 'Netherlands' },
      organizer: [{ organizer: 'Music, Inc.', email: 'music@example.org' }, { organizer: 'Second organizer' }],
      categories: ['Music'],
      tags: ['jazz'],
    });
    // crosses the end of summer time in Europe (2027-10-31 03:00 → 02:00)
    await create('dst', {
      title: 'Night across the clock change',
      start_date: '2027-10-30 22:00:00',
      end_date: '2027-10-31 04:00:00',
      timezone: 'Europe/Amsterdam',
      categories: ['Music'],
    });
    await create('newyork', {
      title: 'Spring forward in New York',
      start_date: '2028-03-12 01:00:00',
      end_date: '2028-03-12 05:00:00',
      timezone: 'America/New_York',
      organizer: [{ organizer: 'No email here' }],
    });
    await create('tokyo', {
      title: '東京の夏祭り — ünïcödé text that is long enough to be folded over several lines of at most 75 octets',
      description: '日本語の説明。'.repeat(20),
      start_date: '2027-08-10 18:00:00',
      end_date: '2027-08-10 21:00:00',
      timezone: 'Asia/Tokyo',
    });
    await create('utc', {
      title: 'UTC meeting',
      start_date: '2027-06-20 09:00:00',
      end_date: '2027-06-20 10:00:00',
      timezone: 'UTC',
    });
    await create('offset', {
      title: 'Fixed offset',
      start_date: '2027-06-21 09:00:00',
      end_date: '2027-06-21 10:00:00',
      timezone: 'UTC+5:30',
    });
    await create('allday', {
      title: 'Festival weekend',
      all_day: true,
      start_date: '2027-07-10',
      end_date: '2027-07-12',
      timezone: 'Europe/Amsterdam',
    });
    await create('hostile', {
      title: HOSTILE,
      description: 'Line one\r\nLine two; with, punctuation\\',
      start_date: '2027-06-25 10:00:00',
      end_date: '2027-06-25 11:00:00',
      venue: { venue: 'Hall "A";\r\nX-EVIL:1', city: 'Utrecht' },
    });
    await create('private', {
      title: 'Private board meeting',
      status: 'private',
      start_date: '2027-06-26 10:00:00',
      end_date: '2027-06-26 11:00:00',
    });
    await create('protected', {
      title: 'Secret party',
      password: 'hunter2',
      start_date: '2027-06-27 10:00:00',
      end_date: '2027-06-27 11:00:00',
    });
    await create('draft', {
      title: 'Draft idea',
      status: 'draft',
      start_date: '2027-06-28 10:00:00',
      end_date: '2027-06-28 11:00:00',
    });
    await create('old', {
      title: 'Forty days ago',
      start_date: '2027-05-06 10:00:00',
      end_date: '2027-05-06 11:00:00',
    });
    await create('recent', {
      title: 'Twenty days ago',
      start_date: '2027-05-26 10:00:00',
      end_date: '2027-05-26 11:00:00',
    });
    await create('far', {
      title: 'Thirteen months ahead',
      start_date: '2028-07-20 10:00:00',
      end_date: '2028-07-20 11:00:00',
    });
  }, 60_000);
  afterAll(async () => {
    await radicale?.stop();
    await service?.close();
  });

  /** The checks every feed passes: lines, both parsers equal to each other and to the API, radicale stores it. */
  async function checkFeed(ics: string, expected: WireEvent[]): Promise<ParsedEvent[]> {
    for (const line of physicalLines(ics)) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    const js = parseWithIcalJs(ics).events;
    const py = parseWithPython(ics).events;
    const uids = expected.map((e) => e.global_id).sort();
    expect(js.map((e) => e.uid).sort()).toEqual(uids);
    expect(py.map((e) => e.uid).sort()).toEqual(uids);
    for (const wire of expected) {
      const a = js.find((e) => e.uid === wire.global_id) as ParsedEvent;
      const b = py.find((e) => e.uid === wire.global_id) as ParsedEvent;
      for (const parsed of [a, b]) {
        expect(parsed.summary).toBe(lines(wire.title));
        expect(parsed.url).toBe(wire.url);
        expect(parsed.categories).toEqual([...wire.categories, ...wire.tags].map((t) => t.name));
        if (wire.all_day) {
          expect(parsed.start).toEqual({ date: wire.start_date.slice(0, 10) });
          const dayAfter = new Date(`${wire.end_date.slice(0, 10)}T00:00:00Z`);
          dayAfter.setUTCDate(dayAfter.getUTCDate() + 1);
          expect(parsed.end).toEqual({ date: dayAfter.toISOString().slice(0, 10) }); // exclusive end
        } else {
          expect(parsed.start).toBe(wire.utc_start_date);
          expect(parsed.end).toBe(wire.utc_end_date);
        }
        const venue = Array.isArray(wire.venue) ? undefined : wire.venue;
        if (venue) expect(parsed.location?.startsWith(venue.venue)).toBe(true);
        else expect(parsed.location).toBeNull();
        const [organizer] = wire.organizer;
        if (organizer) {
          expect(parsed.organizer?.cn).toBe(organizer.organizer.replace(/"/g, "'"));
          expect(parsed.organizer?.value).toEqual(
            organizer.email ? `mailto:${organizer.email}` : expect.stringMatching(/^http/),
          );
        }
      }
      expect(b.description).toBe(a.description);
      expect(b.location).toBe(a.location);
    }
    for (const [uid, one] of splitByUid(ics)) {
      const stored = await radicale.put(uid, one);
      expect({ uid, status: stored.status, body: stored.body }).toEqual({ uid, status: 201, body: expect.anything() });
    }
    return js;
  }

  it('a list feed matches the API, in every zone, through three independent readers', async () => {
    const ics = await text('/ical');
    const visible = ['amsterdam', 'dst', 'newyork', 'tokyo', 'utc', 'offset', 'allday', 'hostile', 'recent'].map(
      (k) => events[k],
    );
    await checkFeed(ics, visible);
    const python = parseWithPython(ics);
    expect(python.timezones.sort()).toEqual(['America/New_York', 'Asia/Tokyo', 'Europe/Amsterdam', 'UTC+5:30']);
    expect(python.name).toBe('Events');
    expect(ics).toContain('X-WR-TIMEZONE:Europe/Amsterdam\r\n');
    expect(ics).toMatch(/\r\nMETHOD:PUBLISH\r\n/);
    expect(ics).toMatch(/\r\nREFRESH-INTERVAL;VALUE=DURATION:PT60M\r\n/);
  });

  it('keeps DST right: local times with TZID, instants equal to the API on both sides of the change', async () => {
    const ics = await text(`/ical/${events.dst.id}`);
    expect(ics).toContain('DTSTART;TZID=Europe/Amsterdam:20271030T220000\r\n');
    expect(ics).toContain('DTEND;TZID=Europe/Amsterdam:20271031T040000\r\n');
    const [parsed] = await checkFeed(ics, [events.dst]);
    expect(parsed.start).toBe('2027-10-30 20:00:00'); // +02:00 before the change
    expect(parsed.end).toBe('2027-10-31 03:00:00'); // +01:00 after it
    const ny = await checkFeed(await text(`/ical/${events.newyork.id}`), [events.newyork]);
    expect(ny[0].start).toBe('2028-03-12 06:00:00');
    expect(ny[0].end).toBe('2028-03-12 09:00:00');
  });

  it('escapes every text so that no field adds a line, a property or a component', async () => {
    const ics = await text(`/ical/${events.hostile.id}`);
    expect(ics.match(/^BEGIN:VEVENT\r$/gm)).toHaveLength(1);
    expect(ics).not.toMatch(/^(UID:evil|X-INJECT|X-EVIL)/m);
    const [parsed] = await checkFeed(ics, [events.hostile]);
    expect(parsed.summary).toBe(lines(events.hostile.title));
    expect(parsed.location).toBe('Hall "A"; X-EVIL:1, Utrecht'); // one line, quotes kept: TEXT needs no quoting
    const single = parseWithIcalJs(ics).events[0];
    expect(single.description).toBe('Line one\nLine two; with, punctuation\\');
  });

  it('writes descriptions as plain text with the HTML beside them, organizers, categories and status', async () => {
    const ics = await text(`/ical/${events.amsterdam.id}`);
    const [parsed] = await checkFeed(ics, [events.amsterdam]);
    expect(parsed.description).toBe('First bold & more\nSecond paragraph');
    expect(ics).toContain('X-ALT-DESC;FMTTYPE=text/html:<p>First <b>bold</b> &amp\\; more</p>');
    expect(parsed.location).toBe('Paradiso, Weteringschans 6, Amsterdam, Netherlands');
    expect(parsed.organizer).toEqual({ cn: 'Music, Inc.', value: 'mailto:music@example.org' });
    expect(ics).toContain('ORGANIZER;CN="Music, Inc.":mailto:music@example.org\r\n');
    expect(ics).toContain('CONTACT;LANGUAGE=en:Second organizer\r\n');
    expect(parsed.status).toBe('CONFIRMED');
    expect(parsed.class).toBe('PUBLIC');
    expect(parsed.sequence).toBe(0);
    expect(ics).toContain('SUMMARY;LANGUAGE=en:Concert in Amsterdam\r\n');
  });

  it('writes all-day events as dates with an exclusive end', async () => {
    const ics = await text(`/ical/by-slug/${events.allday.slug}`);
    expect(ics).toContain('DTSTART;VALUE=DATE:20270710\r\n');
    expect(ics).toContain('DTEND;VALUE=DATE:20270713\r\n');
    await checkFeed(ics, [events.allday]);
  });

  it('folds long lines at 75 octets without splitting a UTF-8 character', async () => {
    const ics = await text(`/ical/${events.tokyo.id}`);
    const lines = physicalLines(ics);
    expect(lines.some((line) => line.startsWith(' '))).toBe(true);
    for (const line of lines) expect(Buffer.from(line, 'utf8').toString('utf8')).toBe(line); // no broken sequence
    expect(ics).not.toContain('\uFFFD');
    await checkFeed(ics, [events.tokyo]);
  });

  it('covers 30 days back to 12 months ahead by default, and any window asked for', async () => {
    const uids = (ics: string) => parseWithIcalJs(ics).events.map((e) => e.uid);
    const all = uids(await text('/ical'));
    expect(all).toContain(events.recent.global_id);
    expect(all).not.toContain(events.old.global_id);
    expect(all).not.toContain(events.far.global_id);
    const wide = await text('/ical', { start_date: '2027-05-01', end_date: '2028-12-31' });
    expect(uids(wide)).toEqual(expect.arrayContaining([events.old.global_id, events.far.global_id]));
    expect(parseWithPython(wide).name).toBe('Events (from: 2027-05-01; to: 2028-12-31)');
  });

  it('filters as GET /events does, naming the filters in the request language', async () => {
    const ics = await text('/ical', { categories: 'music', i18n_language: 'de' });
    await checkFeed(ics, [events.amsterdam, events.dst]);
    expect(parseWithIcalJs(ics).name).toBe('Veranstaltungen (Kategorien: music)');
    const listed = await http(service).get(base).query({ categories: 'music', per_page: 50 });
    expect(parseWithIcalJs(ics).events.map((e) => e.uid)).toEqual(
      listed.body.events.map((e: WireEvent) => e.global_id),
    );
    const bad = await feed('/ical', { categories: 'no-such-category' });
    expect(bad.status).toBe(400);
    expect(bad.headers['content-type']).toMatch(/^application\/json/);
  });

  it('leaves out password-protected events and events the caller may not read; CLASS:PRIVATE for private ones', async () => {
    const anonymous = parseWithIcalJs(await text('/ical')).events.map((e) => e.uid);
    for (const key of ['private', 'protected', 'draft']) expect(anonymous).not.toContain(events[key].global_id);
    const admin = await text('/ical', {}, 'administrator');
    const adminEvents = parseWithIcalJs(admin).events;
    expect(adminEvents.map((e) => e.uid)).toEqual(
      expect.arrayContaining([events.private.global_id, events.draft.global_id]),
    );
    expect(adminEvents.map((e) => e.uid)).not.toContain(events.protected.global_id);
    expect(adminEvents.find((e) => e.uid === events.private.global_id)?.class).toBe('PRIVATE');
    expect(adminEvents.find((e) => e.uid === events.draft.global_id)?.status).toBe('TENTATIVE');
    expect((await feed(`/ical/${events.protected.id}`)).status).toBe(403);
    expect((await feed(`/ical/${events.draft.id}`)).status).toBe(403);
    expect((await feed('/ical/999999')).status).toBe(404);
  });

  it('answers text/calendar on GET /events and GET /events/{id} when asked by Accept, JSON otherwise', async () => {
    const listed = await feed('').set('Accept', 'text/calendar');
    expect(listed.headers['content-type']).toBe('text/calendar; charset=utf-8');
    expect(listed.body).toBe(await text('/ical'));
    const single = await feed(`/${events.utc.id}`).set('Accept', 'text/calendar, application/json;q=0.5');
    expect(single.body).toBe(await text(`/ical/${events.utc.id}`));
    const json = await http(service).get(`${base}/${events.utc.id}`).set('Accept', '*/*');
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect(json.headers.vary).toContain('Accept');
  });

  it('answers 304 to a matching If-None-Match and caches like JSON reads', async () => {
    const first = await feed(`/ical/${events.utc.id}`);
    expect(first.headers['cache-control']).toBe('public, max-age=30');
    expect(first.headers['last-modified']).toBeDefined();
    const again = await http(service).get(`${base}/ical/${events.utc.id}`).set('If-None-Match', first.headers.etag);
    expect(again.status).toBe(304);
    const list = await feed('/ical');
    expect((await http(service).get(`${base}/ical`).set('If-None-Match', list.headers.etag)).status).toBe(304);
    expect((await feed('/ical', {}, 'administrator')).headers['cache-control']).toBe('no-store');
  });

  it('raises SEQUENCE and LAST-MODIFIED with every change, and translates', async () => {
    const id = events.utc.id;
    const before = parseWithIcalJs(await text(`/ical/${id}`)).events[0];
    for (const title of ['UTC meeting, moved', 'UTC meeting, moved again']) {
      const res = await http(service)
        .post(`${base}/${id}`)
        .auth(...service.as('administrator'))
        .send({ title });
      expect(res.status).toBe(200);
    }
    const de = await http(service)
      .post(`${base}/${id}`)
      .query({ i18n_language: 'de' })
      .auth(...service.as('administrator'))
      .send({ title: 'UTC-Treffen' });
    expect(de.status).toBe(200);
    const after = parseWithIcalJs(await text(`/ical/${id}`)).events[0];
    expect(after.sequence).toBe(before.sequence + 3);
    const german = await text(`/ical/${id}`, { i18n_language: 'de' });
    expect(german).toContain('SUMMARY;LANGUAGE=de:UTC-Treffen\r\n');
    expect(parseWithPython(german).events[0].sequence).toBe(after.sequence);
  });

  it('stops at ICAL_MAX_EVENTS', async () => {
    const cap = service.config.icalMaxEvents;
    service.config.icalMaxEvents = 2;
    try {
      const parsed = parseWithIcalJs(await text('/ical'));
      expect(parsed.events.map((e) => e.uid)).toEqual([events.recent.global_id, events.utc.global_id]);
    } finally {
      service.config.icalMaxEvents = cap;
    }
  });
});
