/**
 * Event writes and single reads through HTTP, on every engine (docs/compatibility.md §1.2, §2.3, §3, §4.1–4.5, §4.8;
 * docs/decisions.md).
 */
import { DateTime } from 'luxon';
import { ENGINES } from '../support/engines';
import { http, NS, startService, TEST_NOW, type TestService } from '../support/app';
import { insertOrganizer, insertVenue } from '../support/fixtures';
import type { Role } from '../../src/users/roles';

const EVENT_KEYS = [
  'id',
  'global_id',
  'global_id_lineage',
  'author',
  'status',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'url',
  'rest_url',
  'title',
  'description',
  'excerpt',
  'slug',
  'image',
  'all_day',
  'start_date',
  'start_date_details',
  'end_date',
  'end_date_details',
  'utc_start_date',
  'utc_start_date_details',
  'utc_end_date',
  'utc_end_date_details',
  'timezone',
  'timezone_abbr',
  'cost',
  'cost_details',
  'website',
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'sticky',
  'featured',
  'categories',
  'tags',
  'venue',
  'organizer',
  'custom_fields',
];

describe.each(ENGINES)('events on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine);
  });
  afterAll(() => service.close());

  let n = 0;
  const base = `${NS}/events`;
  const minimal = () => ({ title: `Event ${++n}`, start_date: '2031-04-12 09:00:00', end_date: '2031-04-12 12:30:00' });
  const create = (body: object, role: Role = 'administrator') =>
    http(service)
      .post(base)
      .auth(...service.as(role))
      .send(body);
  const created = async (body: object = {}, role: Role = 'administrator') => {
    const res = await create({ ...minimal(), ...body }, role);
    expect(res.status).toBe(201);
    return res.body;
  };
  const get = (id: number | string, role?: Role, query: object = {}) => {
    const req = http(service).get(`${base}/${id}`).query(query);
    return role ? req.auth(...service.as(role)) : req;
  };

  describe('create', () => {
    it('answers 201 with the full event in the plugin key order', async () => {
      const res = await create(minimal());
      expect(res.status).toBe(201);
      expect(Object.keys(res.body)).toEqual(EVENT_KEYS);
      const e = res.body;
      expect(e).toMatchObject({
        author: String(service.users.administrator.id),
        status: 'publish',
        image: false,
        all_day: false,
        start_date: '2031-04-12 09:00:00',
        end_date: '2031-04-12 12:30:00',
        utc_start_date: '2031-04-12 09:00:00',
        utc_end_date: '2031-04-12 12:30:00',
        start_date_details: { year: '2031', month: '04', day: '12', hour: '09', minutes: '00', seconds: '00' },
        timezone: 'UTC',
        timezone_abbr: 'UTC',
        cost: '',
        cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: [] },
        show_map: true,
        show_map_link: true,
        hide_from_listings: false,
        sticky: false,
        featured: false,
        categories: [],
        tags: [],
        venue: [],
        organizer: [],
        custom_fields: [],
        description: '',
        excerpt: '',
      });
      expect(e.website).toBe(e.url);
      expect(e.url).toMatch(new RegExp(`/event/${e.slug}/$`));
      expect(e.rest_url).toMatch(new RegExp(`${base}/${e.id}$`));
      expect(e.global_id).toMatch(new RegExp(`^127\\.0\\.0\\.1:\\d+\\?id=${e.id}$`));
      expect(e.global_id_lineage).toEqual([e.global_id]);
      expect(e.json_ld).toBeUndefined();
      expect(res.headers.location).toBeUndefined();
    });

    it('accepts form-encoded bodies', async () => {
      const res = await http(service)
        .post(base)
        .auth(...service.as('editor'))
        .type('form')
        .send({ ...minimal(), featured: '1', all_day: 'true', categories: 'Form One,Form Two' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ featured: true, all_day: true });
      expect(res.body.categories.map((c: { name: string }) => c.name)).toEqual(['Form One', 'Form Two']);
    });

    it('needs title, start_date and end_date', async () => {
      const res = await create({ description: 'x' });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('rest_missing_callback_param');
      expect(res.body.data.params.sort()).toEqual(['end_date', 'start_date', 'title']);
    });

    it('reads dates in the event time zone (the plugin test: Hong Kong, 2018-01-01 4pm)', async () => {
      const e = await created({ timezone: 'Asia/Hong_Kong', start_date: '2018-01-01 4pm', end_date: '2018-01-01 6pm' });
      expect(e).toMatchObject({
        start_date: '2018-01-01 16:00:00',
        utc_start_date: '2018-01-01 08:00:00',
        timezone: 'Asia/Hong_Kong',
        timezone_abbr: 'HKT',
      });
    });

    it('reads relative phrases in the event zone and Unix timestamps as instants', async () => {
      const e = await created({ timezone: 'Europe/Amsterdam', start_date: 'tomorrow 9am', end_date: '+2 days 11am' });
      const tomorrow = DateTime.fromISO(TEST_NOW).setZone('Europe/Amsterdam').plus({ days: 1 }).toFormat('yyyy-MM-dd');
      expect(e.start_date).toBe(`${tomorrow} 09:00:00`);
      const stamp = await created({ timezone: 'America/New_York', start_date: 1924941600, end_date: '1924945200' });
      expect(stamp.utc_start_date).toBe('2030-12-31 10:00:00');
      expect(stamp.start_date).toBe('2030-12-31 05:00:00');
      expect(stamp.timezone_abbr).toBe('EST');
    });

    it('accepts offset time zones', async () => {
      const plus = await created({
        timezone: 'UTC+5',
        start_date: '2031-01-01 10:00:00',
        end_date: '2031-01-01 11:00:00',
      });
      expect(plus).toMatchObject({ utc_start_date: '2031-01-01 05:00:00', timezone: 'UTC+5', timezone_abbr: 'UTC+5' });
      const minus = await created({
        timezone: 'UTC-3:30',
        start_date: '2031-01-01 10:00:00',
        end_date: '2031-01-01 11:00:00',
      });
      expect(minus.utc_start_date).toBe('2031-01-01 13:30:00');
    });

    it('rounds all-day events to whole days, keeping multi-day spans', async () => {
      const e = await created({ all_day: true, start_date: '2031-05-01 15:00:00', end_date: '2031-05-03 10:00:00' });
      expect(e).toMatchObject({ all_day: true, start_date: '2031-05-01 00:00:00', end_date: '2031-05-03 23:59:59' });
    });

    it.each([
      [{ start_date: 'not a date' }, 'start_date'],
      [{ end_date: '2031-13-45' }, 'end_date'],
      [{ start_date: '2031-04-12 10:00:00', end_date: '2031-04-12 09:00:00' }, 'end_date'],
      [{ timezone: 'Mars/Olympus' }, 'timezone'],
      [{ title: '' }, 'title'],
      [{ title: '<b></b>' }, 'title'],
      [{ description: '' }, 'description'],
      [{ website: 'example.com' }, 'website'],
      [{ website: 'javascript:alert(1)' }, 'website'],
      [{ status: 'trash' }, 'status'],
      [{ status: 'nonsense' }, 'status'],
      [{ author: 999999 }, 'author'],
      [{ author: 'me' }, 'author'],
      [{ all_day: 'perhaps' }, 'all_day'],
      [{ featured: 'yes please' }, 'featured'],
      [{ venue: 999999 }, 'venue'],
      [{ venue: 'Boathouse' }, 'venue'],
      [{ organizer: [999999] }, 'organizer'],
      [{ image: 999999 }, 'image'],
      [{ image: 'https://images.example.net/file.pdf' }, 'image'],
      [{ image: 'http://127.0.0.1/a.jpg' }, 'image'],
      [{ image: 'http://192.168.1.20/a.jpg' }, 'image'],
      [{ image: 'http://localhost/a.png' }, 'image'],
      [{ date: 'whenever' }, 'date'],
      [{ slug: '***' }, 'slug'],
    ])('answers %j with 400 naming %s', async (fields, param) => {
      const res = await create({ ...minimal(), ...fields });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('rest_invalid_param');
      expect(Object.keys(res.body.data.params)).toEqual([param]);
    });

    it('sanitises HTML and wraps plain text in paragraphs', async () => {
      const e = await created({
        title: 'Fish <script>x()</script>& chips',
        description: 'Line one\n\nLine <em>two</em><img src=x onerror=alert(1)>',
        excerpt: 'Short',
      });
      expect(e.title).toBe('Fish &amp; chips');
      expect(e.description).toBe('<p>Line one</p>\n<p>Line <em>two</em><img src="x" /></p>');
      expect(e.excerpt).toBe('<p>Short</p>');
    });

    it('makes slugs unique, from the title or as sent', async () => {
      const a = await created({ title: 'Same Title' });
      const b = await created({ title: 'Same Title' });
      expect(a.slug).toBe('same-title');
      expect(b.slug).toBe('same-title-2');
      expect((await created({ slug: 'Custom Slug!' })).slug).toBe('custom-slug');
    });

    it('parses the cost into cost_details', async () => {
      expect(await created({ cost: '20$' })).toMatchObject({
        cost: '20$',
        cost_details: { currency_symbol: '$', currency_position: 'postfix', values: ['20'] },
      });
      expect((await created({ cost: ['0$', '20$', '30$'] })).cost).toBe('Free – 30$');
      expect((await created({ cost: 15 })).cost).toBe('$15');
    });

    it('keeps the website, or an empty one', async () => {
      expect((await created({ website: 'https://rivers.example.net/cleanup' })).website).toBe(
        'https://rivers.example.net/cleanup',
      );
      expect((await created({ website: '' })).website).toBe('');
    });

    it('records an image URL without fetching it, reusable by id; contributors may not add one', async () => {
      const e = await created({ image: 'https://images.example.net/river.jpg' }, 'author');
      expect(e.image).toEqual({
        url: 'https://images.example.net/river.jpg',
        id: expect.any(Number),
        extension: 'jpg',
      });
      expect((await created({ image: e.image.id }, 'contributor')).image).toEqual(e.image);
      expect((await created({ image: 'https://images.example.net/river.jpg' })).image.id).toBe(e.image.id);
      const res = await create({ ...minimal(), image: 'https://images.example.net/other.png' }, 'contributor');
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.data.params)).toEqual(['image']);
    });

    it('links categories and tags by id, slug or name, creating unknown names, ordered by name', async () => {
      const cat = (
        await http(service)
          .post(`${NS}/categories`)
          .auth(...service.as('editor'))
          .send({ name: 'Zeta Outdoors' })
      ).body;
      const e = await created({ categories: [cat.id, 'brand new category'], tags: 'family,Family,picnic' });
      expect(e.categories.map((c: { name: string }) => c.name)).toEqual(['brand new category', 'Zeta Outdoors']);
      expect(e.tags.map((t: { slug: string }) => t.slug)).toEqual(['family', 'picnic']);
      expect(Object.keys(e.categories[1])).toEqual([
        'name',
        'slug',
        'term_group',
        'term_taxonomy_id',
        'taxonomy',
        'description',
        'parent',
        'count',
        'filter',
        'id',
        'urls',
      ]);
      expect(e.categories[1]).toMatchObject({
        id: cat.id,
        taxonomy: 'tribe_events_cat',
        filter: 'raw',
        count: 1,
        term_group: 0,
        term_taxonomy_id: cat.id,
      });
      const bySlug = await created({ categories: [cat.slug, 999999] });
      expect(bySlug.categories.map((c: { id: number }) => c.id)).toEqual([cat.id]);
    });

    it('links a venue and organizers by id, in order', async () => {
      const venue = await insertVenue(service.database.db, 'Boathouse', {
        city: 'Utrecht',
        geo_lat: 52.09,
        geo_lng: 5.12,
      });
      const first = await insertOrganizer(service.database.db, 'Zed Club', { email: 'zed@example.org' });
      const second = await insertOrganizer(service.database.db, 'Alpha Club');
      for (const link of [venue, String(venue), { id: venue }]) {
        const e = await created({ venue: link, organizer: [first, { id: second }] });
        expect(e.venue).toMatchObject({
          id: venue,
          venue: 'Boathouse',
          city: 'Utrecht',
          show_map: true,
          show_map_link: true,
          geo_lat: 52.09,
          geo_lng: 5.12,
        });
        expect(e.venue.address).toBeUndefined();
        expect(e.organizer.map((o: { id: number }) => o.id)).toEqual([first, second]);
        expect(e.organizer[0]).toMatchObject({ organizer: 'Zed Club', email: 'zed@example.org' });
      }
      const single = await created({ organizer: first });
      expect(single.organizer.map((o: { id: number }) => o.id)).toEqual([first]);
      const notAVenue = await create({ ...minimal(), venue: first });
      expect(notAVenue.status).toBe(400);
    });

    it('sets the author when allowed', async () => {
      expect((await created({ author: service.users.author.id })).author).toBe(String(service.users.author.id));
      const res = await create({ ...minimal(), author: service.users.editor.id }, 'contributor');
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('rest_cannot_edit_others');
    });

    it.each([
      ['contributor', undefined, 'draft'],
      ['contributor', 'publish', 'pending'],
      ['contributor', 'future', 'pending'],
      ['contributor', 'private', 'private'],
      ['author', undefined, 'publish'],
      ['author', 'draft', 'draft'],
      ['editor', 'pending', 'pending'],
      ['administrator', 'private', 'private'],
    ] as const)('stores the status a %s asking for %s as %s', async (role, status, stored) => {
      expect((await created(status ? { status } : {}, role)).status).toBe(stored);
    });

    it('turns publish with a future publication date into future, and future with a past one into publish', async () => {
      expect((await created({ date: '2099-01-01 10:00:00' })).status).toBe('future');
      expect((await created({ status: 'future', date_utc: '2020-01-01 10:00:00' })).status).toBe('publish');
    });

    it.each(['subscriber'] as const)('forbids %s to create', async (role) => {
      const res = await create(minimal(), role);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('rest_forbidden');
    });

    it('answers anonymous creates 401 whatever the body', async () => {
      for (const body of [minimal(), {}]) {
        const res = await http(service).post(base).send(body);
        expect(res.status).toBe(401);
        expect(res.body.code).toBe('rest_forbidden');
      }
    });

    it('ignores unknown and generated fields', async () => {
      const e = await created({
        utc_start_date: '1999-01-01 00:00:00',
        url: 'http://elsewhere/',
        cost_details: { values: [1] },
        colour: 'red',
      });
      expect(e.utc_start_date).toBe('2031-04-12 09:00:00');
      expect(e.url).not.toBe('http://elsewhere/');
    });
  });

  describe('single reads', () => {
    it('answers an event with its JSON-LD, and its venue and organizers with theirs', async () => {
      const venue = await insertVenue(service.database.db, 'Hall', { address: 'Kade 1', city: 'Utrecht' });
      const org = await insertOrganizer(service.database.db, 'Club', { phone: '123' });
      const e = await created({
        timezone: 'Europe/Amsterdam',
        start_date: '2031-06-01 09:00:00',
        end_date: '2031-06-01 10:00:00',
        venue,
        organizer: [org],
        cost: '15$',
        excerpt: 'Nice',
      });
      const res = await get(e.id);
      expect(res.status).toBe(200);
      expect(res.body.json_ld).toMatchObject({
        '@context': 'http://schema.org',
        '@type': 'Event',
        name: e.title,
        description: 'Nice',
        url: e.url,
        startDate: '2031-06-01T09:00:00+02:00',
        endDate: '2031-06-01T10:00:00+02:00',
        location: {
          '@type': 'Place',
          name: 'Hall',
          address: { '@type': 'PostalAddress', streetAddress: 'Kade 1', addressLocality: 'Utrecht' },
        },
        organizer: { '@type': 'Person', name: 'Club', telephone: '123' },
        offers: { '@type': 'Offer', price: '15', priceCurrency: 'USD' },
      });
      expect(res.body.venue.json_ld['@type']).toBe('Place');
      expect(res.body.organizer[0].json_ld['@type']).toBe('Person');
      const bySlug = await http(service).get(`${base}/by-slug/${e.slug}`);
      expect(bySlug.status).toBe(200);
      expect(bySlug.body).toEqual(res.body);
    });

    it('answers unknown ids 404, venue ids 400 rest-invalid-event-id, unknown slugs 400', async () => {
      for (const id of [999999, 0]) {
        const res = await get(id);
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('rest-event-not-found');
      }
      const venue = await insertVenue(service.database.db, 'Not an event');
      const res = await get(venue);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('rest-invalid-event-id');
      const slug = await http(service).get(`${base}/by-slug/no-such-event-slug`);
      expect(slug.status).toBe(400);
      expect(Object.keys(slug.body.data.params)).toEqual(['slug']);
    });

    it('hides unpublished events from those who may not read them', async () => {
      const draft = await created({ status: 'draft' }, 'contributor');
      for (const [role, status] of [
        [undefined, 403],
        ['subscriber', 403],
        ['author', 403],
        ['contributor', 200],
        ['editor', 200],
      ] as const) {
        const res = await get(draft.id, role);
        expect([role, res.status]).toEqual([role, status]);
        if (status === 403) expect(res.body.code).toBe('event-not-accessible');
      }
      const bySlug = await http(service).get(`${base}/by-slug/${draft.slug}`);
      expect(bySlug.status).toBe(403);
      const privateOne = await created({ status: 'private' });
      expect((await get(privateOne.id, 'author')).status).toBe(403);
      expect((await get(privateOne.id, 'editor')).status).toBe(200);
    });

    it('answers a trashed event to its author and editors with status trash, 403 to others, by id and slug', async () => {
      const e = await created({}, 'author');
      await http(service)
        .delete(`${base}/${e.id}`)
        .auth(...service.as('administrator'))
        .expect(200);
      for (const role of ['author', 'editor', 'administrator'] as const) {
        for (const path of [`${base}/${e.id}`, `${base}/by-slug/${e.slug}`]) {
          const res = await http(service)
            .get(path)
            .auth(...service.as(role));
          expect([role, res.status, res.body.status]).toEqual([role, 200, 'trash']);
        }
      }
      for (const role of [undefined, 'contributor', 'subscriber'] as const) {
        const res = await get(e.id, role);
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('event-not-accessible');
        expect((await http(service).get(`${base}/by-slug/${e.slug}`)).body.code).toBe('event-not-accessible');
      }
    });

    it('protects password-protected events, unless the password is sent or the caller may edit', async () => {
      const e = await created({ description: 'Secret plans' });
      await http(service)
        .patch(`${base}/${e.id}`)
        .auth(...service.as('administrator'))
        .send({ password: 'open sesame' })
        .expect(200);
      for (const query of [{}, { password: 'wrong' }]) {
        const res = await get(e.id, undefined, query);
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('event-password-protected');
      }
      const right = await get(e.id, undefined, { password: 'open sesame' });
      expect(right.status).toBe(200);
      expect(right.body.description).toBe('<p>Secret plans</p>');
      expect((await get(e.id, 'editor')).status).toBe(200);
      await http(service)
        .patch(`${base}/${e.id}`)
        .auth(...service.as('administrator'))
        .send({ password: '' })
        .expect(200);
      expect((await get(e.id)).status).toBe(200);
    });
  });

  describe('updates', () => {
    it.each(['post', 'put', 'patch'] as const)('%s changes only the fields sent', async (method) => {
      const venue = await insertVenue(service.database.db, 'Kept venue');
      const org = await insertOrganizer(service.database.db, 'Kept organizer');
      const e = await created({
        status: 'draft',
        featured: true,
        sticky: true,
        website: 'https://kept.example.org',
        image: 'https://images.example.net/kept.png',
        timezone: 'Europe/Amsterdam',
        venue,
        organizer: [org],
        categories: ['Kept category'],
        cost: '9€',
        show_map: false,
      });
      const res = await http(service)
        [method](`${base}/${e.id}`)
        .auth(...service.as('administrator'))
        .send({ title: 'Renamed' });
      expect(res.status).toBe(200);
      const { title, modified, modified_utc, ...rest } = res.body;
      const { title: oldTitle, modified: m1, modified_utc: m2, ...before } = e;
      expect(title).toBe('Renamed');
      expect(oldTitle).not.toBe('Renamed');
      expect(rest).toEqual(before);
      expect([modified, modified_utc, m1, m2].every((v) => typeof v === 'string')).toBe(true);
    });

    it('keeps the other date when one is sent, and refuses an end before the start', async () => {
      const e = await created();
      const moved = await http(service)
        .patch(`${base}/${e.id}`)
        .auth(...service.as('administrator'))
        .send({ start_date: '2031-04-12 08:00:00' });
      expect(moved.body).toMatchObject({ start_date: '2031-04-12 08:00:00', end_date: '2031-04-12 12:30:00' });
      const bad = await http(service)
        .patch(`${base}/${e.id}`)
        .auth(...service.as('administrator'))
        .send({ start_date: '2031-04-13 08:00:00' });
      expect(bad.status).toBe(400);
      expect(Object.keys(bad.body.data.params)).toEqual(['end_date']);
    });

    it('keeps local times when the time zone changes', async () => {
      const e = await created();
      const res = await http(service)
        .patch(`${base}/${e.id}`)
        .auth(...service.as('administrator'))
        .send({ timezone: 'America/New_York' });
      expect(res.body).toMatchObject({
        start_date: '2031-04-12 09:00:00',
        utc_start_date: '2031-04-12 13:00:00',
        timezone_abbr: 'EDT',
      });
    });

    it('replaces or clears terms and organizers, and unlinks the venue', async () => {
      const venue = await insertVenue(service.database.db, 'Unlinked venue');
      const org = await insertOrganizer(service.database.db, 'Dropped organizer');
      const e = await created({ venue, organizer: [org], categories: ['Old cat'], tags: ['old-tag'] });
      const res = await http(service)
        .patch(`${base}/${e.id}`)
        .auth(...service.as('administrator'))
        .send({ venue: 0, organizer: [], categories: ['New cat'], tags: '' });
      expect(res.body).toMatchObject({ venue: [], organizer: [], tags: [] });
      expect(res.body.categories.map((c: { name: string }) => c.name)).toEqual(['New cat']);
    });

    it('writes nothing when any field is invalid', async () => {
      const e = await created();
      const res = await http(service)
        .patch(`${base}/${e.id}`)
        .auth(...service.as('administrator'))
        .send({ title: 'Should not stick', organizer: [999999] });
      expect(res.status).toBe(400);
      expect((await get(e.id)).body.title).toBe(e.title);
    });

    it('applies the object rules of the roles, on id and slug routes alike', async () => {
      const own = await created({}, 'contributor');
      const published = await created({}, 'editor');
      const send = (id: number | string, role: Role, path = `${base}/${id}`) =>
        http(service)
          .patch(path)
          .auth(...service.as(role))
          .send({ title: 'x' });
      expect((await send(own.id, 'contributor')).status).toBe(200);
      expect((await send(published.id, 'contributor')).status).toBe(403);
      expect((await send(published.id, 'contributor', `${base}/by-slug/${published.slug}`)).status).toBe(403);
      expect((await send(published.id, 'author')).status).toBe(403);
      expect((await send(published.id, 'subscriber')).status).toBe(403);
      expect((await send(published.id, 'editor', `${base}/by-slug/${published.slug}`)).status).toBe(200);
      expect((await http(service).patch(`${base}/${published.id}`).send({ title: 'x' })).status).toBe(401);
    });

    it('answers unknown ids 404 and venue ids 400 to authorised callers', async () => {
      const unknown = await http(service)
        .put(`${base}/999999`)
        .auth(...service.as('editor'))
        .send({ title: 'x' });
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('rest-event-not-found');
      const venue = await insertVenue(service.database.db, 'Wrong type');
      expect(
        (
          await http(service)
            .put(`${base}/${venue}`)
            .auth(...service.as('editor'))
            .send({ title: 'x' })
        ).body.code,
      ).toBe('rest-invalid-event-id');
    });

    it('ignores a password sent to the by-slug route, which does not declare it', async () => {
      const e = await created();
      await http(service)
        .patch(`${base}/by-slug/${e.slug}`)
        .auth(...service.as('editor'))
        .send({ password: 'sneaky' })
        .expect(200);
      expect((await get(e.id)).status).toBe(200);
    });

    it('sets a password on create', async () => {
      const e = await created({ password: 'from the start' });
      expect((await get(e.id)).body.code).toBe('event-password-protected');
      expect((await get(e.id, undefined, { password: 'from the start' })).status).toBe(200);
    });

    it('changes the slug, keeping it unique', async () => {
      const a = await created({ title: 'Slug Source' });
      const b = await created();
      const res = await http(service)
        .patch(`${base}/by-slug/${b.slug}`)
        .auth(...service.as('editor'))
        .send({ slug: a.slug });
      expect(res.body.slug).toBe(`${a.slug}-2`);
    });
  });

  describe('deletes', () => {
    it('trashes, answers 410 on repeat, and deletes permanently with force', async () => {
      const e = await created();
      const trashed = await http(service)
        .delete(`${base}/${e.id}`)
        .auth(...service.as('editor'));
      expect(trashed.status).toBe(200);
      expect(trashed.body).toMatchObject({ id: e.id, status: 'trash' });
      const again = await http(service)
        .delete(`${base}/${e.id}`)
        .auth(...service.as('editor'));
      expect(again.status).toBe(410);
      expect(again.body.code).toBe('event-is-in-trash');
      const forced = await http(service)
        .delete(`${base}/${e.id}`)
        .query({ force: true })
        .auth(...service.as('editor'));
      expect(forced.status).toBe(200);
      expect((await get(e.id)).status).toBe(404);
    });

    it('deletes by slug, with the object rules', async () => {
      const own = await created({}, 'contributor');
      const other = await created({}, 'editor');
      expect(
        (
          await http(service)
            .delete(`${base}/by-slug/${other.slug}`)
            .auth(...service.as('contributor'))
        ).status,
      ).toBe(403);
      expect(
        (
          await http(service)
            .delete(`${base}/by-slug/${own.slug}`)
            .auth(...service.as('contributor'))
        ).status,
      ).toBe(200);
      expect((await http(service).delete(`${base}/${other.id}`)).status).toBe(401);
      expect(
        (
          await http(service)
            .delete(`${base}/999999`)
            .auth(...service.as('editor'))
        ).status,
      ).toBe(404);
      expect(
        (
          await http(service)
            .delete(`${base}/by-slug/never-was`)
            .auth(...service.as('editor'))
        ).status,
      ).toBe(400);
    });
  });
});
