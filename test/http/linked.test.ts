/**
 * Venues and organizers through HTTP, on every engine: the 24 operations, duplicate reuse, roles and statuses,
 * trash, lists, and linking them to events (docs/compatibility.md §1.5, §1.6, §2.3, §3, §4.6, §4.7, §5.2).
 */
import { DateTime } from 'luxon';
import { ENGINES } from '../support/engines';
import { http, NS, startService, TEST_NOW, type TestService } from '../support/app';
import type { Role } from '../../src/users/roles';

const KINDS = [
  {
    kind: 'venue',
    plural: 'venues',
    keys: [
      'id',
      'author',
      'status',
      'date',
      'date_utc',
      'modified',
      'modified_utc',
      'url',
      'venue',
      'description',
      'slug',
      'address',
      'city',
      'country',
      'zip',
      'phone',
      'website',
      'show_map',
      'show_map_link',
      'global_id',
      'global_id_lineage',
    ],
    full: {
      description: 'On the river',
      address: 'Kade 12',
      city: 'Utrecht',
      country: 'Netherlands',
      zip: '3511 AB',
      phone: '+31 30 1',
      website: 'https://boathouse.example.net',
    },
  },
  {
    kind: 'organizer',
    plural: 'organizers',
    keys: [
      'id',
      'author',
      'status',
      'date',
      'date_utc',
      'modified',
      'modified_utc',
      'url',
      'organizer',
      'description',
      'slug',
      'phone',
      'website',
      'email',
      'global_id',
      'global_id_lineage',
    ],
    full: {
      description: 'Volunteers',
      phone: '+31 30 2',
      website: 'https://club.example.org',
      email: 'hello@club.example',
    },
  },
] as const;

describe.each(ENGINES)('venues and organizers on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine);
  });
  afterAll(() => service.close());

  describe.each(KINDS)('$plural', ({ kind, plural, keys, full }) => {
    const base = `${NS}/${plural}`;
    let n = 0;
    const unique = (name: string) => `${name} ${kind} ${++n}`;
    const create = (body: object, role: Role = 'administrator') =>
      http(service)
        .post(base)
        .auth(...service.as(role))
        .send(body);
    const created = async (body: object = {}, role: Role = 'administrator') => {
      const res = await create({ [kind]: unique('Record'), ...body }, role);
      expect(res.status).toBe(201);
      return res.body;
    };

    describe('create', () => {
      it('answers 201 with the plugin shape, empty fields left out', async () => {
        const record = await created(full);
        expect(Object.keys(record)).toEqual(keys);
        expect(record).toMatchObject({
          ...full,
          description: `<p>${full.description}</p>`,
          author: String(service.users.administrator.id),
          status: 'publish',
        });
        expect(record.url).toMatch(new RegExp(`/${kind}/${record.slug}/$`));
        expect(record.rest_url).toBeUndefined();
        const bare = await created();
        expect(Object.keys(bare)).toEqual(keys.filter((key) => !(key in full)));
      });

      it('needs the name, and refuses an empty one', async () => {
        const missing = await create({ description: 'x' });
        expect(missing.status).toBe(400);
        expect(missing.body).toMatchObject({ code: 'rest_missing_callback_param', data: { params: [kind] } });
        const empty = await create({ [kind]: '  ' });
        expect(empty.status).toBe(400);
        expect(Object.keys(empty.body.data.params)).toEqual([kind]);
      });

      it('accepts form-encoded bodies', async () => {
        const res = await http(service)
          .post(base)
          .auth(...service.as('editor'))
          .type('form')
          .send({ [kind]: unique('Form'), phone: '123' });
        expect(res.status).toBe(201);
        expect(res.body.phone).toBe('123');
      });

      it('reuses a record with the same name and the same sent duplicate fields, writing the sent fields onto it', async () => {
        const name = unique('Duplicate');
        const first = await created({ [kind]: name, ...full });
        const same = { ...full, description: full.description.toUpperCase(), phone: full.phone };
        const again = await create({
          [kind]: name.toUpperCase(),
          ...same,
          ...(kind === 'venue' ? { country: 'Belgium' } : {}),
        });
        expect(again.status).toBe(201);
        expect(again.body.id).toBe(first.id);
        if (kind === 'venue') expect(again.body.country).toBe('Belgium'); // not compared: written onto the record
        expect((await create({ [kind]: name, description: full.description })).body.id).toBe(first.id);
        expect((await create({ [kind]: name, phone: full.phone })).body.id).toBe(first.id);
        expect((await create({ [kind]: name })).body.id).toBe(first.id);
        for (const differs of [
          { description: 'Different' },
          { phone: '+1 555 0100' },
          { ...full, phone: '+1 555 0101' },
        ]) {
          const res = await create({ [kind]: name, ...differs });
          expect([differs, res.status]).toEqual([differs, 201]);
          expect(res.body.id).not.toBe(first.id);
        }
      });

      it('reuses a duplicate sent inline with an event, fields compared the same way', async () => {
        const name = unique('Inline duplicate');
        const first = await created({ [kind]: name, description: 'Hall', phone: '123' });
        const event = async (record: object) => {
          const res = await http(service)
            .post(`${NS}/events`)
            .auth(...service.as('administrator'))
            .send({
              title: `With ${name}`,
              start_date: '2027-07-01 10:00:00',
              end_date: '2027-07-01 11:00:00',
              [kind]: kind === 'venue' ? record : [record],
            });
          expect(res.status).toBe(201);
          return kind === 'venue' ? res.body.venue.id : res.body.organizer[0].id;
        };
        expect(await event({ [kind]: name.toLowerCase(), description: 'hall', phone: '123' })).toBe(first.id);
        expect(await event({ [kind]: name, description: 'Hall', phone: '456' })).not.toBe(first.id);
      });

      it.each([
        [{ website: 'not a url' }, 'website'],
        [{ author: 999999 }, 'author'],
        [{ status: 'trash' }, 'status'],
        [{ date: 'someday maybe' }, 'date'],
        [{ image: 'http://10.0.0.1/x.png' }, 'image'],
        [{ image: 999999 }, 'image'],
        [{ description: { html: 1 } }, 'description'],
      ])('answers %j with 400 naming %s', async (fields, param) => {
        const res = await create({ [kind]: unique('Bad'), ...fields });
        expect(res.status).toBe(400);
        expect(Object.keys(res.body.data.params)).toEqual([param]);
      });

      it.each([
        ['contributor', undefined, 'draft'],
        ['contributor', 'publish', 'pending'],
        ['author', undefined, 'publish'],
        ['editor', 'private', 'private'],
      ] as const)('stores what a %s asks (%s) as %s', async (role, status, stored) => {
        expect((await created(status ? { status } : {}, role)).status).toBe(stored);
      });

      it('answers anonymous 401 and subscribers 403, before validating', async () => {
        expect((await http(service).post(base).send({})).status).toBe(401);
        const res = await create({}, 'subscriber');
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('rest_forbidden');
      });

      it('sets and removes the image', async () => {
        const record = await created({ image: 'https://images.example.net/place.webp' }, 'author');
        expect(record.image).toMatchObject({ url: 'https://images.example.net/place.webp', extension: 'webp' });
        const cleared = await http(service)
          .patch(`${base}/${record.id}`)
          .auth(...service.as('author'))
          .send({ image: '' });
        expect(cleared.body.image).toBeUndefined();
      });
    });

    describe('read', () => {
      it('answers by id and by slug, with JSON-LD', async () => {
        const record = await created(full);
        const res = await http(service).get(`${base}/${record.id}`);
        expect(res.status).toBe(200);
        expect(res.body.json_ld).toMatchObject({ '@type': kind === 'venue' ? 'Place' : 'Person', name: record[kind] });
        expect((await http(service).get(`${base}/by-slug/${record.slug}`)).body).toEqual(res.body);
      });

      it('answers unknown ids, ids of other kinds and unknown slugs with 400', async () => {
        const event = (
          await http(service)
            .post(`${NS}/events`)
            .auth(...service.as('editor'))
            .send({ title: 'E', start_date: '2031-01-01 10:00', end_date: '2031-01-01 11:00' })
        ).body;
        for (const id of [999999, event.id, 0]) {
          const res = await http(service).get(`${base}/${id}`);
          expect(res.status).toBe(400);
          expect(Object.keys(res.body.data.params)).toEqual(['id']);
        }
        expect((await http(service).get(`${base}/by-slug/never-existed`)).status).toBe(400);
      });

      it('hides unpublished records from those who may not read them; trashed ones stay readable to editors', async () => {
        const draft = await created({ status: 'draft' }, 'contributor');
        const anonymous = await http(service).get(`${base}/${draft.id}`);
        expect(anonymous.status).toBe(403);
        expect(anonymous.body.code).toBe(`${kind}-not-accessible`);
        expect(
          (
            await http(service)
              .get(`${base}/${draft.id}`)
              .auth(...service.as('contributor'))
          ).status,
        ).toBe(200);
        expect(
          (
            await http(service)
              .get(`${base}/${draft.id}`)
              .auth(...service.as('author'))
          ).status,
        ).toBe(403);
        const trashed = await created();
        await http(service)
          .delete(`${base}/${trashed.id}`)
          .auth(...service.as('editor'))
          .expect(200);
        expect((await http(service).get(`${base}/${trashed.id}`)).status).toBe(403);
        const editor = await http(service)
          .get(`${base}/${trashed.id}`)
          .auth(...service.as('editor'));
        expect(editor.status).toBe(200);
        expect(editor.body.status).toBe('trash');
      });
    });

    describe('update', () => {
      it.each(['post', 'put', 'patch'] as const)(
        '%s changes only the fields sent; "" clears a field',
        async (method) => {
          const record = await created(full);
          const res = await http(service)
            [method](`${base}/${record.id}`)
            .auth(...service.as('editor'))
            .send({ phone: '', description: 'New' });
          expect(res.status).toBe(200);
          expect(res.body.phone).toBeUndefined();
          expect(res.body).toMatchObject({ website: full.website, description: '<p>New</p>', status: 'publish' });
        },
      );

      it('allows a rename onto a name in use', async () => {
        const a = await created();
        const b = await created();
        const res = await http(service)
          .patch(`${base}/${b.id}`)
          .auth(...service.as('editor'))
          .send({ [kind]: a[kind] });
        expect(res.status).toBe(200);
        expect(res.body[kind]).toBe(a[kind]);
      });

      it('applies the object rules on id and slug routes alike', async () => {
        const own = await created({}, 'contributor');
        const other = await created({}, 'editor');
        const patch = (path: string, role: Role) =>
          http(service)
            .patch(path)
            .auth(...service.as(role))
            .send({ phone: '1' });
        expect((await patch(`${base}/${own.id}`, 'contributor')).status).toBe(200);
        expect((await patch(`${base}/${other.id}`, 'contributor')).status).toBe(403);
        expect((await patch(`${base}/by-slug/${other.slug}`, 'contributor')).status).toBe(403);
        expect((await patch(`${base}/by-slug/${other.slug}`, 'editor')).status).toBe(200);
        expect((await http(service).patch(`${base}/${other.id}`).send({ phone: '1' })).status).toBe(401);
        expect((await patch(`${base}/999999`, 'editor')).status).toBe(400);
      });
    });

    describe('delete', () => {
      it('trashes (unlinking from events), answers 410 on repeat, deletes permanently with force', async () => {
        const record = await created();
        const link = kind === 'venue' ? { venue: record.id } : { organizer: [record.id] };
        const event = (
          await http(service)
            .post(`${NS}/events`)
            .auth(...service.as('editor'))
            .send({ title: 'Linked', start_date: '2031-01-01 10:00', end_date: '2031-01-01 11:00', ...link })
        ).body;
        const trashed = await http(service)
          .delete(`${base}/${record.id}`)
          .auth(...service.as('editor'));
        expect(trashed.status).toBe(200);
        expect(trashed.body.status).toBe('trash');
        const after = (await http(service).get(`${NS}/events/${event.id}`)).body;
        expect(kind === 'venue' ? after.venue : after.organizer).toEqual([]);
        const again = await http(service)
          .delete(`${base}/${record.id}`)
          .auth(...service.as('editor'));
        expect(again.status).toBe(410);
        expect(again.body.code).toBe(`${kind}-is-in-trash`);
        expect(
          (
            await http(service)
              .delete(`${base}/by-slug/${record.slug}`)
              .query({ force: 'true' })
              .auth(...service.as('editor'))
          ).status,
        ).toBe(200);
        expect((await http(service).get(`${base}/${record.id}`)).status).toBe(400);
      });
    });

    describe('list', () => {
      it('lists newest first, with the envelope, paging and 404 past the last page', async () => {
        await created();
        const res = await http(service).get(base).query({ per_page: 1 });
        expect(Object.keys(res.body)).toEqual([plural, 'rest_url', 'next_rest_url', 'total', 'total_pages']);
        expect(res.headers['x-tec-total']).toBe(String(res.body.total));
        const all = (await http(service).get(base).query({ per_page: 50 })).body[plural];
        const dates = all.map((r: { date_utc: string }) => r.date_utc);
        expect([...dates].sort().reverse()).toEqual(dates);
        const past = await http(service).get(base).query({ page: 999 });
        expect(past.status).toBe(404);
        expect(past.body.code).toBe(`${kind}-archive-page-not-found`);
      });

      it('searches word fragments across the fields', async () => {
        const match = await created(
          kind === 'venue' ? { address: '100, Avenue du Temple' } : { email: 'temple.avenue@example.org' },
        );
        const found = (await http(service).get(base).query({ search: 'temple avenue' })).body[plural].map(
          (r: { id: number }) => r.id,
        );
        expect(found).toEqual([match.id]);
        const none = await http(service).get(base).query({ search: 'zzzz-no-such' });
        expect(none.body.total).toBe(0);
      });

      it('filters by event, has_events and only_with_upcoming', async () => {
        const linked = await created();
        const upcoming = await created();
        const lonely = await created();
        const link = (id: number) => (kind === 'venue' ? { venue: id } : { organizer: [id] });
        const past = (
          await http(service)
            .post(`${NS}/events`)
            .auth(...service.as('editor'))
            .send({ title: 'Past', start_date: '2020-01-01 10:00', end_date: '2020-01-01 11:00', ...link(linked.id) })
        ).body;
        const future = DateTime.fromISO(TEST_NOW, { zone: 'utc' }).plus({ days: 10 }).toFormat('yyyy-MM-dd HH:mm:ss');
        await http(service)
          .post(`${NS}/events`)
          .auth(...service.as('editor'))
          .send({ title: 'Draft future', start_date: future, end_date: future, status: 'draft', ...link(upcoming.id) })
          .expect(201);
        const ids = async (query: object, role?: Role) => {
          const req = http(service)
            .get(base)
            .query({ per_page: 50, ...query });
          return (await (role ? req.auth(...service.as(role)) : req)).body[plural].map((r: { id: number }) => r.id);
        };
        expect(await ids({ event: past.id })).toEqual([linked.id]);
        expect(await ids({ has_events: 'yes' })).toContain(linked.id);
        expect(await ids({ has_events: 'yes' })).not.toContain(upcoming.id);
        expect(await ids({ has_events: 0 })).toContain(lonely.id);
        expect(await ids({ only_with_upcoming: 1 })).not.toContain(upcoming.id);
        expect(await ids({ only_with_upcoming: 'true' }, 'editor')).toContain(upcoming.id);
        expect(await ids({ only_with_upcoming: 'true' }, 'editor')).not.toContain(linked.id);
        expect(await ids({ only_with_upcoming: 'false' })).toContain(lonely.id);
      });

      it('shows each caller what they may read; status only for editors', async () => {
        const draft = await created({ status: 'draft' }, 'contributor');
        const ids = async (query: object, role?: Role) => {
          const req = http(service)
            .get(base)
            .query({ per_page: 50, ...query });
          return (await (role ? req.auth(...service.as(role)) : req)).body[plural]?.map((r: { id: number }) => r.id);
        };
        expect(await ids({})).not.toContain(draft.id);
        expect(await ids({}, 'contributor')).toContain(draft.id);
        expect(await ids({}, 'author')).not.toContain(draft.id);
        expect(await ids({ status: 'draft' }, 'editor')).toContain(draft.id);
        const refused = await http(service).get(base).query({ status: 'draft' });
        expect(refused.status).toBe(400);
      });

      it.each([
        ['page', 0],
        ['per_page', 'x'],
        ['search', ''],
        ['event', 999999],
        ['event', 'x'],
        ['status', 'nope'],
        ['i18n_language', 'xx'],
      ])('answers %s=%j with 400 naming it', async (name, value) => {
        const res = await http(service)
          .get(base)
          .query({ [name]: value });
        expect(res.status).toBe(400);
        expect(Object.keys(res.body.data.params)).toEqual([name]);
      });
    });
  });

  describe('venue specifics', () => {
    const base = `${NS}/venues`;
    it('reads the map flags as booleans or the plugin truthy strings, true by default', async () => {
      const defaults = (
        await http(service)
          .post(base)
          .auth(...service.as('editor'))
          .send({ venue: 'Flags default' })
      ).body;
      expect(defaults).toMatchObject({ show_map: true, show_map_link: true });
      for (const [value, expected] of [
        [false, false],
        ['no', false],
        ['0', false],
        ['yes', true],
        ['enabled', true],
        [true, true],
        [0, false],
      ] as const) {
        const res = await http(service)
          .post(base)
          .auth(...service.as('editor'))
          .send({ venue: `Flags ${String(value)} ${typeof value}`, show_map: value, show_map_link: value });
        expect([value, res.body.show_map, res.body.show_map_link]).toEqual([value, expected, expected]);
      }
    });

    it('stores coordinates in range, both or neither, and clears them with ""', async () => {
      const venue = (
        await http(service)
          .post(base)
          .auth(...service.as('editor'))
          .send({ venue: 'Geo', geo_lat: 52.09, geo_lng: 5.12 })
      ).body;
      expect(venue).toMatchObject({ geo_lat: 52.09, geo_lng: 5.12 });
      for (const [fields, param] of [
        [{ geo_lat: 91, geo_lng: 0 }, 'geo_lat'],
        [{ geo_lat: 0, geo_lng: -181 }, 'geo_lng'],
        [{ geo_lat: 10 }, 'geo_lng'],
        [{ geo_lng: 10 }, 'geo_lat'],
      ] as const) {
        const res = await http(service)
          .post(base)
          .auth(...service.as('editor'))
          .send({ venue: 'Bad geo', ...fields });
        expect([fields, res.status, Object.keys(res.body.data?.params ?? {})]).toEqual([fields, 400, [param]]);
      }
      const cleared = await http(service)
        .patch(`${base}/${venue.id}`)
        .auth(...service.as('editor'))
        .send({ geo_lat: '', geo_lng: '' });
      expect(cleared.body.geo_lat).toBeUndefined();
    });

    it('derives stateprovince from the state, else the province, when it is not sent', async () => {
      const post = async (fields: object) => {
        const res = await http(service)
          .post(base)
          .auth(...service.as('editor'))
          .send({ venue: `Region ${JSON.stringify(fields)}`, ...fields });
        expect(res.status).toBe(201);
        return res.body;
      };
      expect(await post({ state: 'CA' })).toMatchObject({ state: 'CA', stateprovince: 'CA' });
      expect(await post({ province: 'Ontario' })).toMatchObject({ province: 'Ontario', stateprovince: 'Ontario' });
      expect(await post({ state: 'CA', province: 'Ontario' })).toMatchObject({ stateprovince: 'CA' });
      expect(await post({ state: 'CA', stateprovince: 'California' })).toMatchObject({ stateprovince: 'California' });
      expect((await post({ city: 'Nowhere' })).stateprovince).toBeUndefined();
      const venue = await post({ province: 'Quebec' });
      const patched = await http(service)
        .patch(`${base}/${venue.id}`)
        .auth(...service.as('editor'))
        .send({ state: 'QC' });
      expect(patched.body).toMatchObject({ province: 'Quebec', state: 'QC', stateprovince: 'QC' });
      const inline = await http(service)
        .post(`${NS}/events`)
        .auth(...service.as('editor'))
        .send({
          title: 'Regional',
          start_date: '2027-07-01 10:00:00',
          end_date: '2027-07-01 11:00:00',
          venue: { venue: 'Inline region', province: 'Bavaria' },
        });
      expect(inline.body.venue).toMatchObject({ province: 'Bavaria', stateprovince: 'Bavaria' });
      const read = await http(service).get(`${base}/${inline.body.venue.id}`);
      expect(read.body.stateprovince).toBe('Bavaria');
    });

    it('lists several statuses given as a list or as repeated keys', async () => {
      const draft = (
        await http(service)
          .post(base)
          .auth(...service.as('editor'))
          .send({ venue: 'Status draft', status: 'draft' })
      ).body;
      const published = (
        await http(service)
          .post(base)
          .auth(...service.as('editor'))
          .send({ venue: 'Status published' })
      ).body;
      for (const query of ['status=publish,draft', 'status[]=publish&status[]=draft', 'status=publish&status=draft']) {
        const res = await http(service)
          .get(`${base}?per_page=50&${query}`)
          .auth(...service.as('editor'));
        expect([query, res.status]).toEqual([query, 200]);
        const ids = res.body.venues.map((v: { id: number }) => v.id);
        expect(ids).toEqual(expect.arrayContaining([draft.id, published.id]));
      }
      const drafts = await http(service)
        .get(`${base}?per_page=50&status[]=draft`)
        .auth(...service.as('editor'));
      expect(drafts.body.venues.map((v: { id: number }) => v.id)).not.toContain(published.id);
      const refused = await http(service).get(`${base}?status[]=publish&status[]=draft`);
      expect([refused.status, Object.keys(refused.body.data.params)]).toEqual([400, ['status']]);
      const organizers = await http(service)
        .get(`${NS}/organizers?status[]=publish&status[]=draft`)
        .auth(...service.as('editor'));
      expect(organizers.status).toBe(200);
    });
  });

  describe('linking from events', () => {
    const events = `${NS}/events`;
    const when = { start_date: '2031-02-01 10:00:00', end_date: '2031-02-01 12:00:00' };
    const post = (body: object) =>
      http(service)
        .post(events)
        .auth(...service.as('editor'))
        .send({ title: 'Linking', ...when, ...body });

    it('creates a venue inline and reuses it when repeated', async () => {
      const first = await post({ venue: { venue: 'Inline Hall', city: 'Gouda' } });
      expect(first.status).toBe(201);
      expect(first.body.venue).toMatchObject({ venue: 'Inline Hall', city: 'Gouda' });
      const second = await post({ venue: { venue: 'inline hall' } });
      expect(second.body.venue.id).toBe(first.body.venue.id);
      const viaObject = await post({ venue: first.body.venue });
      expect(viaObject.body.venue.id).toBe(first.body.venue.id);
    });

    it('links organizers from a mixed array, in order', async () => {
      const existing = (
        await http(service)
          .post(`${NS}/organizers`)
          .auth(...service.as('editor'))
          .send({ organizer: 'Existing Org' })
      ).body;
      const res = await post({
        organizer: [
          { organizer: 'Inline A' },
          existing.id,
          { id: existing.id },
          { organizer: 'Inline C', email: 'c@example.org' },
          0,
        ],
      });
      expect(res.status).toBe(201);
      expect(res.body.organizer.map((o: { organizer: string }) => o.organizer)).toEqual([
        'Inline A',
        'Existing Org',
        'Inline C',
      ]);
    });

    it('refuses invalid inline data on the event parameter and writes nothing', async () => {
      const before = (await http(service).get(`${NS}/venues`).query({ per_page: 50 })).body.total;
      for (const [body, param] of [
        [{ venue: { venue: 'Bad site', website: 'nope' } }, 'venue'],
        [{ venue: { city: 'No name' } }, 'venue'],
        [{ organizer: [{ organizer: 'Fine' }, { organizer: '' }] }, 'organizer'],
        [{ venue: { venue: 'Orphan venue' }, organizer: [999999] }, 'organizer'],
      ] as const) {
        const res = await post({ title: 'Must not exist', ...body });
        expect([param, res.status]).toEqual([param, 400]);
        expect(Object.keys(res.body.data.params)).toEqual([param]);
      }
      expect((await http(service).get(`${NS}/venues`).query({ per_page: 50 })).body.total).toBe(before);
      expect((await http(service).get(events).query({ search: 'Must not exist' })).body.total).toBe(0);
      expect((await http(service).get(`${NS}/organizers`).query({ search: 'Fine' })).body.total).toBe(0);
    });

    it('keeps links when omitted and unlinks with 0, "" or []', async () => {
      const event = (await post({ venue: { venue: 'Kept Hall' }, organizer: [{ organizer: 'Kept Org' }] })).body;
      const untouched = await http(service)
        .patch(`${events}/${event.id}`)
        .auth(...service.as('editor'))
        .send({ title: 'Still linked' });
      expect(untouched.body.venue.venue).toBe('Kept Hall');
      expect(untouched.body.organizer).toHaveLength(1);
      for (const empty of [0, '', []]) {
        const relinked = await http(service)
          .patch(`${events}/${event.id}`)
          .auth(...service.as('editor'))
          .send({ venue: event.venue.id, organizer: [event.organizer[0].id] });
        expect(relinked.body.venue.id).toBe(event.venue.id);
        const res = await http(service)
          .patch(`${events}/${event.id}`)
          .auth(...service.as('editor'))
          .send({ venue: empty, organizer: empty });
        expect([empty, res.body.venue, res.body.organizer]).toEqual([empty, [], []]);
      }
    });

    it('filters events by a venue created through the API and by its coordinates', async () => {
      const venue = (
        await http(service)
          .post(`${NS}/venues`)
          .auth(...service.as('editor'))
          .send({ venue: 'Geo Hall', geo_lat: -33.86, geo_lng: 151.21 })
      ).body;
      const event = (await post({ title: 'Sydney night', venue: venue.id })).body;
      const list = (query: object) =>
        http(service)
          .get(events)
          .query({ start_date: '2031-01-01', end_date: '2031-12-31', per_page: 50, ...query });
      expect((await list({ venue: venue.id })).body.events.map((e: { id: number }) => e.id)).toEqual([event.id]);
      expect(
        (await list({ geoloc_lat: -33.87, geoloc_lng: 151.2, geoloc_radius: 5 })).body.events.map(
          (e: { id: number }) => e.id,
        ),
      ).toEqual([event.id]);
    });
  });
});
