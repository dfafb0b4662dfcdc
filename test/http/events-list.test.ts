/**
 * `GET /events` through HTTP, on every engine: the default window, inclusive and strict dates, relative filters,
 * every other filter, visibility, passwords, the envelope and bad input (docs/compatibility.md §1.7, §3.3, §3.4, §5.1).
 */
import { DateTime } from 'luxon';
import { ENGINES } from '../support/engines';
import { utcText } from '../support/kit';
import { http, NS, startService, TEST_NOW, type TestService } from '../support/app';
import { insertOrganizer, insertVenue } from '../support/fixtures';
import type { Role } from '../../src/users/roles';

describe.each(ENGINES)('event lists on %s', (engine) => {
  let service: TestService;
  const base = `${NS}/events`;
  const now = DateTime.fromISO(TEST_NOW, { zone: 'utc' }); // the service's clock starts here: noon, far from day edges
  const ids: Record<string, number> = {};

  const create = async (key: string, fields: Record<string, unknown>, role: Role = 'administrator') => {
    const res = await http(service)
      .post(base)
      .auth(...service.as(role))
      .send({ title: key, ...fields });
    expect([key, res.status]).toEqual([key, 201]);
    ids[key] = res.body.id;
    return res.body;
  };
  const at = (start: DateTime, hours = 2) => ({ start_date: utcText(start), end_date: utcText(start.plus({ hours })) });
  const list = (query: Record<string, unknown> = {}, role?: Role) => {
    const req = http(service).get(base).query(query);
    return role ? req.auth(...service.as(role)) : req;
  };
  const titles = async (query: Record<string, unknown> = {}, role?: Role) => {
    const res = await list({ per_page: 50, ...query }, role);
    expect(res.status).toBe(200);
    return res.body.events.map((e: { title: string }) => e.title);
  };

  beforeAll(async () => {
    service = await startService(engine);
    const db = service.database.db;
    const venue = await insertVenue(db, 'Located', { geo_lat: 52.0907, geo_lng: 5.1214 });
    const far = await insertVenue(db, 'Far away', { geo_lat: 40.4168, geo_lng: -3.7038 });
    const plain = await insertVenue(db, 'No coordinates');
    const organizer = await insertOrganizer(db, 'Organizer A');
    ids.venue = venue;
    ids.far = far;
    ids.organizer = organizer;
    const parent = (
      await http(service)
        .post(`${NS}/categories`)
        .auth(...service.as('editor'))
        .send({ name: 'Music' })
    ).body;
    const child = (
      await http(service)
        .post(`${NS}/categories`)
        .auth(...service.as('editor'))
        .send({ name: 'Jazz', parent: parent.id })
    ).body;
    ids.music = parent.id;
    ids.jazz = child.id;

    await create('three days ago', at(now.minus({ days: 3 })));
    await create('running since three days', {
      start_date: utcText(now.minus({ days: 3 })),
      end_date: utcText(now.plus({ days: 3 })),
    });
    await create('yesterday morning', {
      ...at(now.minus({ days: 1 }).startOf('day').plus({ hours: 8 })),
      categories: [child.id],
      venue,
    });
    await create('tomorrow', {
      ...at(now.plus({ days: 1 })),
      tags: ['picnic'],
      organizer: [organizer],
      featured: true,
      venue: far,
    });
    await create('next week jazz picnic', {
      ...at(now.plus({ days: 7 })),
      categories: [parent.id],
      description: 'Bring a blanket',
      venue: plain,
    });
    await create('in a year', { ...at(now.plus({ years: 1 })), excerpt: 'Jazz on the lake' });
    await create('in 25 months', at(now.plus({ months: 25 })));
    await create('hidden', { ...at(now.plus({ days: 2 })), hide_from_listings: true });
    await create('editor draft', { ...at(now.plus({ days: 3 })), status: 'draft' }, 'editor');
    await create('contributor draft', { ...at(now.plus({ days: 4 })) }, 'contributor');
    await create('private one', { ...at(now.plus({ days: 5 })), status: 'private' });
    await create('protected', {
      ...at(now.plus({ days: 6 })),
      description: 'Secret',
      cost: '5$',
      categories: [parent.id],
    });
    await http(service)
      .patch(`${base}/${ids.protected}`)
      .auth(...service.as('administrator'))
      .send({ password: 'pw' })
      .expect(200);
    await create('child', at(now.plus({ days: 8 })));
    await service.database.db('events').where({ post_id: ids.child }).update({ post_parent: ids.tomorrow });
  });
  afterAll(() => service.close());

  const DEFAULT_WINDOW = ['yesterday morning', 'tomorrow', 'protected', 'next week jazz picnic', 'child', 'in a year'];

  it('lists published, visible events in the default window (yesterday 00:00 to 24 months), by start', async () => {
    expect(await titles()).toEqual(DEFAULT_WINDOW);
  });

  it('answers the envelope, its headers and links, and 404 past the last page', async () => {
    const res = await list({ per_page: 2, page: 2 });
    expect(Object.keys(res.body)).toEqual([
      'events',
      'rest_url',
      'next_rest_url',
      'previous_rest_url',
      'total',
      'total_pages',
    ]);
    expect(res.body).toMatchObject({ total: 6, total_pages: 3 });
    expect(res.body.rest_url).toMatch(/\/events\/\?page=2&per_page=2$/);
    expect(res.body.next_rest_url).toMatch(/page=3&per_page=2$/);
    expect(res.body.previous_rest_url).toMatch(/page=1&per_page=2$/);
    expect(res.headers).toMatchObject({
      'x-tec-total': '6',
      'x-tec-totalpages': '3',
      'x-wp-total': '6',
      'x-wp-totalpages': '3',
    });
    expect(res.headers.link).toBe(
      `<${res.body.next_rest_url}>; rel="next", <${res.body.previous_rest_url}>; rel="prev"`,
    );
    const past = await list({ page: 4, per_page: 2 });
    expect(past.status).toBe(404);
    expect(past.body.code).toBe('event-archive-page-not-found');
    const empty = await list({ search: 'nothing matches this' });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ events: [], rest_url: expect.any(String), total: 0, total_pages: 0 });
    expect((await list({ per_page: 100 })).body.rest_url).toContain('per_page=50');
  });

  it('rounds start_date and end_date to whole days unless strict_dates', async () => {
    const yesterdayNoon = utcText(now.minus({ days: 1 }).startOf('day').plus({ hours: 12 }));
    expect(await titles({ start_date: yesterdayNoon })).toContain('yesterday morning');
    expect(await titles({ start_date: yesterdayNoon, strict_dates: 'true' })).not.toContain('yesterday morning');
    const tomorrow = now.plus({ days: 1 });
    expect(await titles({ end_date: utcText(tomorrow.startOf('day')) })).toContain('tomorrow');
    expect(await titles({ end_date: utcText(tomorrow.startOf('day')), strict_dates: 1 })).not.toContain('tomorrow');
  });

  it('applies explicit windows, and drops the defaults when a relative filter is sent', async () => {
    const since = utcText(now.minus({ days: 10 }));
    expect(await titles({ start_date: since })).toEqual([
      'three days ago',
      'running since three days',
      ...DEFAULT_WINDOW,
    ]);
    expect(await titles({ ends_after: utcText(now.plus({ months: 13 })) })).toEqual(['in 25 months']);
    expect(await titles({ starts_before: utcText(now.minus({ days: 2 })) })).toEqual([
      'three days ago',
      'running since three days',
    ]);
    expect(
      await titles({ starts_after: utcText(now.plus({ days: 6 })), ends_before: utcText(now.plus({ days: 9 })) }),
    ).toEqual(['next week jazz picnic', 'child']);
    expect(
      await titles({
        start_date: since,
        starts_before: utcText(now.minus({ days: 2 })),
        ends_after: utcText(now.plus({ days: 1 })),
      }),
    ).toEqual(['running since three days']);
    expect(await titles({ start_date: 'tomorrow', end_date: '+8 days' })).toEqual([
      'tomorrow',
      'protected',
      'next week jazz picnic',
      'child',
    ]);
  });

  it('ignores every date with include, but still hides hidden events', async () => {
    const res = await titles({
      include: `${ids['in 25 months']},${ids['three days ago']},${ids.hidden}`,
      start_date: '2000-01-01',
      end_date: '2000-01-02',
    });
    expect(res.sort()).toEqual(['in 25 months', 'three days ago']);
  });

  it('searches every word in title, excerpt or description', async () => {
    expect(await titles({ search: 'jazz' })).toEqual(['next week jazz picnic', 'in a year']);
    expect(await titles({ search: 'picnic blanket' })).toEqual(['next week jazz picnic']);
    expect(await titles({ search: 'jazz blanket lake' })).toEqual([]);
  });

  it('filters by categories (children included), tags, venue, organizer and featured', async () => {
    expect(await titles({ categories: ids.music })).toEqual([
      'yesterday morning',
      'protected',
      'next week jazz picnic',
    ]);
    expect(await titles({ categories: 'jazz' })).toEqual(['yesterday morning']);
    expect(await titles({ tags: 'picnic' })).toEqual(['tomorrow']);
    expect(await titles({ venue: ids.venue })).toEqual(['yesterday morning']);
    expect(await titles({ venue: `${ids.venue},${ids.far}` })).toEqual(['yesterday morning', 'tomorrow']);
    expect(await titles({ organizer: ids.organizer })).toEqual(['tomorrow']);
    expect(await titles({ featured: true })).toEqual(['tomorrow']);
    expect(await titles({ featured: 0 })).not.toContain('tomorrow');
    expect(await titles({ post_parent: ids.tomorrow })).toEqual(['child']);
  });

  it('filters by venue geolocation', async () => {
    expect(await titles({ geoloc: true })).toEqual(['yesterday morning', 'tomorrow']);
    expect(await titles({ geoloc: false })).not.toContain('tomorrow');
    expect(await titles({ geoloc_lat: 52.1, geoloc_lng: 5.1 })).toEqual(['yesterday morning']);
    expect(await titles({ geoloc_lat: 52.1, geoloc_lng: 5.1, geoloc_radius: 2000 })).toEqual([
      'yesterday morning',
      'tomorrow',
    ]);
    expect(await titles({ geoloc_lat: 0, geoloc_lng: 0, geoloc_radius: 10 })).toEqual([]);
  });

  it('shows each caller what they may read, and lets only editors ask for other statuses', async () => {
    expect(await titles({}, 'subscriber')).toEqual(DEFAULT_WINDOW);
    const contributor = await titles({ start_date: '2000-01-01', end_date: '+3 years' }, 'contributor');
    expect(contributor).toContain('contributor draft');
    expect(contributor).not.toContain('editor draft');
    expect(contributor).not.toContain('private one');
    const editor = await titles({}, 'editor');
    expect(editor).toEqual(expect.arrayContaining(['editor draft', 'contributor draft', 'private one']));
    expect(await titles({ status: 'draft' }, 'editor')).toEqual(['editor draft', 'contributor draft']);
    expect(await titles({ status: 'publish, private' }, 'administrator')).toContain('private one');
    expect(await titles({ status: 'publish' })).toEqual(DEFAULT_WINDOW);
    for (const [status, role] of [
      ['draft', undefined],
      ['publish,draft', 'subscriber'],
      ['publish,publish', undefined],
      ['foo', 'editor'],
      ['publish,foo', 'editor'],
    ] as const) {
      const res = await list({ status }, role);
      expect([status, res.status]).toEqual([status, 400]);
      expect(Object.keys(res.body.data.params)).toEqual(['status']);
    }
  });

  it('takes several statuses as a list, as repeated keys or as bracketed keys, each filtered by permission', async () => {
    const raw = async (query: string, role: Role) => {
      const res = await http(service)
        .get(`${base}?per_page=50&${query}`)
        .auth(...service.as(role));
      expect([query, res.status]).toEqual([query, 200]);
      return res.body.events.map((e: { title: string }) => e.title);
    };
    const both = [...DEFAULT_WINDOW, 'editor draft', 'contributor draft'].sort();
    for (const query of [
      'status=publish,draft',
      'status[]=publish&status[]=draft',
      'status=publish&status=draft',
      'status%5B%5D=publish&status%5B%5D=draft',
      'status[]=publish,draft',
    ]) {
      expect((await raw(query, 'editor')).sort()).toEqual(both);
    }
    // a contributor may ask for drafts, and sees only its own
    const contributor = await raw('status[]=draft&status[]=publish', 'contributor');
    expect(contributor).toContain('contributor draft');
    expect(contributor).not.toContain('editor draft');
    expect(await raw('status[]=publish', 'subscriber')).toEqual(DEFAULT_WINDOW);
    for (const query of ['status[]=publish&status[]=draft', 'status[]=publish&status[]=publish']) {
      const res = await http(service)
        .get(`${base}?${query}`)
        .auth(...service.as('subscriber'));
      expect([query, res.status, Object.keys(res.body.data.params)]).toEqual([query, 400, ['status']]);
    }
    const unknown = await http(service)
      .get(`${base}?status[]=publish&status[]=foo`)
      .auth(...service.as('editor'));
    expect([unknown.status, Object.keys(unknown.body.data.params)]).toEqual([400, ['status']]);
  });

  it('blanks password-protected events unless the password is sent', async () => {
    const blanked = (await list({ include: ids.protected })).body.events[0];
    expect(blanked).toMatchObject({
      title: 'protected',
      description: '',
      excerpt: '',
      image: false,
      cost: '',
      website: '',
      all_day: null,
      show_map: null,
      featured: null,
      categories: [],
      tags: [],
      venue: [],
      organizer: [],
      cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: [] },
    });
    const open = (await list({ include: ids.protected, password: 'pw' })).body.events[0];
    expect(open).toMatchObject({ description: '<p>Secret</p>', cost: '5$', all_day: false });
  });

  it('echoes every filter sent in rest_url, percent-encoded', async () => {
    const res = await list({
      categories: `${ids.music}`,
      search: 'jazz picnic',
      start_date: '2020-01-01 00:00:00',
      i18n_language: 'nl',
    });
    expect(res.body.rest_url).toContain('start_date=2020-01-01%2000%3A00%3A00');
    expect(res.body.rest_url).toContain('search=jazz%20picnic');
    expect(res.body.rest_url).toContain(`categories=${ids.music}`);
    expect(res.body.rest_url).toContain('i18n_language=nl');
  });

  it.each([true, 'TRUE', 1])('refuses ticketed=%j (no tickets are sold here) as the plugin does', async (value) => {
    const res = await list({ ticketed: value });
    expect(res.status).toBe(400);
    expect(res.body.data.params).toEqual({ ticketed: expect.any(String) });
    expect(res.body.data.details.ticketed.code).toBe('event-tickets-not-active');
  });

  it.each([false, 'False', 0])('accepts ticketed=%j, which filters nothing', async (value) => {
    expect((await list({ ticketed: value })).status).toBe(200);
  });

  it.each([
    ['page', 0],
    ['page', 'x'],
    ['per_page', -1],
    ['per_page', 1.5],
    ['start_date', 'never'],
    ['end_date', ''],
    ['starts_before', 'soonish'],
    ['starts_after', '2020-02-31 99:00'],
    ['ends_before', 'no date'],
    ['ends_after', 'bogus'],
    ['search', ''],
    ['categories', 'no-such-category'],
    ['categories', 999999],
    ['tags', 'no-such-tag'],
    ['venue', 'abc'],
    ['venue', 999999],
    ['organizer', 999999],
    ['featured', 'maybe'],
    ['geoloc', 'x'],
    ['geoloc_lat', 91],
    ['geoloc_lng', 'east'],
    ['geoloc_radius', 0],
    ['include', 'a'],
    ['include', 0],
    ['post_parent', 999999],
    ['post_parent', 'x'],
    ['status', ''],
    ['ticketed', 'x'],
    ['i18n_language', 'xx'],
  ])('answers %s=%j with 400 naming it', async (name, value) => {
    const res = await list({ [name]: value });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('rest_invalid_param');
    expect(Object.keys(res.body.data.params)).toEqual([name]);
  });

  it('needs both geoloc_lat and geoloc_lng', async () => {
    const res = await list({ geoloc_lat: 52 });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.data.params)).toEqual(['geoloc_lng']);
  });

  it('accepts list parameters repeated, bracketed or comma-separated', async () => {
    for (const query of [
      `venue=${ids.venue}&venue=${ids.far}`,
      `venue[]=${ids.venue}&venue[]=${ids.far}`,
      `venue=${ids.venue},${ids.far}`,
    ]) {
      const res = await http(service).get(`${base}?${query}`);
      expect(res.body.events.map((e: { title: string }) => e.title)).toEqual(['yesterday morning', 'tomorrow']);
    }
  });
});
