/**
 * Failures the fuzz tests (fuzz.test.ts) found, as plain tests on every engine: each was a 500 (or, for slugs, a
 * broken length rule) for a request that deserves a 4xx in the error shape or a normal answer. Where the right
 * answer is a choice for whoever fixes it (refuse or accept), the test allows both but never a 5xx.
 */
import http from 'node:http';
import request from 'supertest';
import { ENGINES } from '../support/engines';
import { basic } from '../support/kit';
import { http as client, NS, startService, TEST_NOW, type TestService } from '../support/app';

const ids = (count: number) => Array.from({ length: count }, (_, i) => i + 1);
const BIG = 2147483648; // one past PostgreSQL's `integer`

interface Res {
  status: number;
  body: { code?: string; message?: string; data?: { status?: number; params?: Record<string, string> | string[] } };
  headers: Record<string, string>;
}

/** The WordPress error shape with `data.status` equal to the HTTP status. */
function expectError(res: Res, statuses: number[]): void {
  expect(statuses).toContain(res.status);
  expect(res.body).toEqual({
    code: expect.any(String),
    message: expect.any(String),
    data: expect.objectContaining({ status: res.status }),
  });
}

/** 400 `rest_invalid_param` naming `name`. */
function expectInvalid(res: Res, name: string): void {
  expect(res.status).toBe(400);
  expect(res.body.code).toBe('rest_invalid_param');
  expect(Object.keys(res.body.data?.params ?? {})).toContain(name);
}

/** Stored (`created`) or refused with 400 naming `name`: anything but a 5xx. */
function expectStoredOrInvalid(res: Res, created: number, name: string): void {
  if (res.status === created) return;
  expectInvalid(res, name);
}

describe.each(ENGINES)('fuzz regressions on %s', (engine) => {
  let service: TestService;
  const when = { start_date: '2031-04-12 09:00:00', end_date: '2031-04-12 12:30:00' };
  const admin = () => service.as('administrator');

  beforeAll(async () => {
    service = await startService(engine);
  });
  afterAll(() => service.close());

  describe('a malformed percent-escape in a path parameter (was 500: URIError from the router)', () => {
    it.each(['/organizers/%C0%AF', '/events/%E0%A4%A', '/categories/%', '/tags/%ZZ', '/events/occurrences/%'])(
      'GET %s is 404 rest_no_route, like any id that is not digits',
      async (path) => {
        const res = await client(service).get(`${NS}${path}`);
        expectError(res, [404]);
        expect(res.body.code).toBe('rest_no_route');
      },
    );

    it.each(['/events/by-slug/%E0%A4%A', '/venues/by-slug/%C0%AF', '/organizers/by-slug/%'])(
      'GET and PATCH %s answer a 4xx in the error shape',
      async (path) => {
        expectError(await client(service).get(`${NS}${path}`), [400, 404]);
        expectError(
          await client(service)
            .patch(`${NS}${path}`)
            .auth(...admin())
            .send({ phone: '1' }),
          [400, 404],
        );
      },
    );
  });

  describe('bodies the parsers refuse (were 500: parser errors the error mapper does not know)', () => {
    it('a form body nested deeper than the parser allows is a 400', async () => {
      const res = await client(service)
        .post(`${NS}/tags`)
        .auth(...admin())
        .type('form')
        .send(`name=deep&a${'[a]'.repeat(40)}=1`);
      expectError(res, [400]);
    });

    it('a form body with more than 1000 fields is a 400 or 413', async () => {
      const res = await client(service)
        .post(`${NS}/tags`)
        .auth(...admin())
        .type('form')
        .send(
          ids(1500)
            .map((i) => `k${i}=v`)
            .join('&'),
        );
      expectError(res, [400, 413]);
    });

    it.each(['gzip', 'deflate', 'br'])(
      'a body sent with Content-Encoding %s that is not compressed is a 400',
      async (encoding) => {
        const res = await client(service)
          .post(`${NS}/tags`)
          .auth(...admin())
          .set('Content-Type', 'application/json')
          .set('Content-Encoding', encoding)
          .send('{"name":"not compressed"}');
        expectError(res, [400]);
      },
    );
  });

  describe('an array query parameter sent in object form (was 500: TypeError in the validator)', () => {
    it.each([
      ['/events', 'organizer'],
      ['/events', 'include'],
      ['/tags', 'include'],
      ['/categories', 'exclude'],
    ])('GET %s?%s[a]=1 is 400 naming it', async (path, name) => {
      expectInvalid(await client(service).get(`${NS}${path}?${name}[a]=1`), name);
      expectInvalid(await client(service).get(`${NS}${path}?${name}[length]=1`), name);
    });
  });

  describe('ids past 2^31 − 1 (were 500 on PostgreSQL: integer out of range, or invalid input syntax for Infinity)', () => {
    const huge = [
      ['2^31', String(BIG)],
      ['2^53 − 1', '9007199254740991'],
      ['a 401-digit number', `1${'0'.repeat(400)}`],
    ];

    /** Answered like the same request with an unknown small id, or refused as out of range. */
    function expectLikeUnknown(res: Res, unknown: Res, refusals: (res: Res) => boolean): void {
      expect(res.status).toBeLessThan(500);
      if (refusals(res)) return;
      expect([res.status, res.body.code]).toEqual([unknown.status, unknown.body.code]);
    }
    const names = (res: Res, name: string) =>
      res.status === 400 &&
      res.body.code === 'rest_invalid_param' &&
      Object.keys(res.body.data?.params ?? {}).includes(name);
    const noRoute = (res: Res) => res.status === 404 && res.body.code === 'rest_no_route';

    it.each(
      huge.flatMap(([label, id]) =>
        ['events', 'venues', 'organizers', 'categories', 'tags'].map((kind) => [kind, label, id]),
      ),
    )('GET /%s/{%s} answers like an unknown id (or 404 rest_no_route, or 400 naming id)', async (kind, _, id) => {
      const unknown = await client(service).get(`${NS}/${kind}/987654`);
      const res = await client(service).get(`${NS}/${kind}/${id}`);
      expectLikeUnknown(res, unknown, (r) => noRoute(r) || names(r, 'id'));
    });

    it.each([
      ['/events', 'post_parent'],
      ['/events', 'venue'],
      ['/events', 'organizer'],
      ['/events', 'categories'],
      ['/events', 'tags'],
      ['/events', 'include'],
      ['/categories', 'event'],
      ['/categories', 'post'],
      ['/categories', 'parent'],
      ['/categories', 'include'],
      ['/tags', 'exclude'],
      ['/venues', 'event'],
      ['/organizers', 'event'],
    ])('GET %s?%s=2147483648 answers like an unknown id (or 400 naming it)', async (path, name) => {
      const unknown = await client(service).get(`${NS}${path}?${name}=987654`);
      const res = await client(service).get(`${NS}${path}?${name}=${BIG}`);
      expectLikeUnknown(res, unknown, (r) => names(r, name));
    });

    it.each([
      ['/venues', 'event'],
      ['/organizers', 'event'],
      ['/categories', 'event'],
      ['/events', 'venue'],
      ['/events', 'post_parent'],
    ])(
      'GET %s?%s=Infinity (or 1e400) is 400 naming it (was 500 on PostgreSQL: invalid input syntax)',
      async (path, name) => {
        for (const value of ['Infinity', '1e400', '-Infinity']) {
          const res = await client(service).get(`${NS}${path}?${name}=${value}`);
          expect(res.status).toBeLessThan(500);
          if (res.status !== 200) expectInvalid(res, name);
        }
      },
    );

    it.each([
      ['venue', BIG],
      ['organizer', [BIG]],
      ['categories', [BIG]],
      ['tags', [BIG]],
      ['image', BIG],
      ['author', BIG],
    ])('an event write with %s %j answers like an unknown id (or 400 naming it)', async (field, value) => {
      const unknownValue = Array.isArray(value) ? [987654] : 987654;
      const unknown = await client(service)
        .post(`${NS}/events`)
        .auth(...admin())
        .send({ title: 'Unknown id', ...when, [field]: unknownValue });
      const res = await client(service)
        .post(`${NS}/events`)
        .auth(...admin())
        .send({ title: 'Huge id', ...when, [field]: value });
      expectLikeUnknown(res, unknown, (r) => names(r, field));
    });

    it.each([
      ['venues', 'venue', 'author'],
      ['venues', 'venue', 'image'],
      ['organizers', 'organizer', 'author'],
      ['categories', 'name', 'parent'],
    ])(
      'a write to /%s with %s and %s 2147483648 answers like an unknown id (or 400 naming it)',
      async (path, nameField, field) => {
        const unknown = await client(service)
          .post(`${NS}/${path}`)
          .auth(...admin())
          .send({ [nameField]: `Unknown ${field}`, [field]: 987654 });
        const res = await client(service)
          .post(`${NS}/${path}`)
          .auth(...admin())
          .send({ [nameField]: `Huge ${field}`, [field]: BIG });
        expectLikeUnknown(res, unknown, (r) => names(r, field));
      },
    );
  });

  describe('lists of ids longer than the database binds at once (were 500: too many SQL variables / bind parameters)', () => {
    it.each([40_000, 70_000])('an event write with %i organizer ids is 400 naming organizer', async (count) => {
      expectInvalid(
        await client(service)
          .post(`${NS}/events`)
          .auth(...admin())
          .send({ title: 'Many organizers', ...when, organizer: ids(count) }),
        'organizer',
      );
    });
  });

  describe("query strings past Node's default 16 KB header limit, as a server run with a larger --max-http-header-size takes them", () => {
    let big: http.Server;
    beforeAll(async () => {
      big = http.createServer({ maxHeaderSize: 1024 * 1024 }, service.app);
      await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve));
      // a term for the search to run against
      await client(service)
        .post(`${NS}/categories`)
        .auth(...admin())
        .send({ name: 'Searched' })
        .expect(201);
    });
    afterAll(() => new Promise((resolve) => big.close(resolve)));

    it('a 60 000-character search is no match, or 400 naming search (was 500 on SQLite: LIKE or GLOB pattern too complex)', async () => {
      const res = await request(big).get(`${NS}/categories?search=${'0'.repeat(60_000)}&hide_empty=0`);
      if (res.status !== 200) expectInvalid(res, 'search');
    });

    it('exclude with 40 000 ids is 400 naming exclude (was 500 on SQLite: too many SQL variables)', async () => {
      expectInvalid(await request(big).get(`${NS}/categories?exclude=${ids(40_000).join(',')}`), 'exclude');
    });

    it('include with 70 000 ids is a list, or 400 naming include (was 500: too many SQL variables / bind parameters)', async () => {
      const res = await request(big).get(`${NS}/events?include=${ids(70_000).join(',')}`);
      if (res.status !== 200) expectInvalid(res, 'include');
    });
  });

  describe('NUL characters in text (were 500 on PostgreSQL: invalid byte sequence)', () => {
    it('in a by-slug path: an unknown slug', async () => {
      expectInvalid(await client(service).get(`${NS}/organizers/by-slug/a%00b`), 'slug');
      expectInvalid(await client(service).get(`${NS}/events/by-slug/a%00b`), 'slug');
    });

    it('in search: no match, or 400 naming search', async () => {
      for (const path of ['/events', '/venues', '/tags']) {
        const res = await client(service).get(`${NS}${path}?search=a%00`);
        if (res.status !== 200) expectInvalid(res, 'search');
      }
    });

    it('in a Basic login: 401 invalid_username', async () => {
      const res = await client(service).get(`${NS}/tags`).set('Authorization', basic('nobody\u0000:password'));
      expectError(res, [401]);
      expect(res.body.code).toBe('invalid_username');
    });

    it.each([
      ['/venues', 'venue', {}],
      ['/organizers', 'organizer', {}],
      ['/tags', 'name', {}],
      ['/categories', 'name', {}],
      ['/events', 'title', when],
    ])('in a %s write: stored, or 400 naming %s', async (path, field, rest) => {
      const res = await client(service)
        .post(`${NS}${path}`)
        .auth(...admin())
        .send({ ...rest, [field]: `nul\u0000${field}` });
      expectStoredOrInvalid(res, 201, field);
    });
  });

  describe('checks made before authentication and on undeclared fields (were 500 and wrong codes in a pre-validation guard)', () => {
    const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

    it('a JSON body with an undeclared field nested 20 000 deep is accepted, the field ignored (was 500: Maximum call stack size exceeded)', async () => {
      const res = await client(service)
        .post(`${NS}/tags`)
        .auth(...admin())
        .set('Content-Type', 'application/json')
        .send(`{"name":"Deep body","extra":${deep(20_000)}}`);
      expect(res.status).toBe(201);
    });

    it('a JSON body with a declared field nested 20 000 deep is 400 naming it (was 500)', async () => {
      const res = await client(service)
        .post(`${NS}/tags`)
        .auth(...admin())
        .set('Content-Type', 'application/json')
        .send(`{"name":${deep(20_000)}}`);
      expectInvalid(res, 'name');
    });

    it('a NUL in an undeclared body field or query parameter is ignored, like any unknown field', async () => {
      expect(
        (
          await client(service)
            .post(`${NS}/tags`)
            .auth(...admin())
            .send({ name: 'Unknown NUL field', TITLE: 'a\u0000b' })
        ).status,
      ).toBe(201);
      expect((await client(service).get(`${NS}/tags?foo=a%00b`)).status).toBe(200);
      const category = (
        await client(service)
          .post(`${NS}/categories`)
          .auth(...admin())
          .send({ name: 'Deleted with a body' })
      ).body;
      expect(
        (
          await client(service)
            .delete(`${NS}/categories/${category.id}`)
            .auth(...admin())
            .send({ title: 'a\u0000b' })
        ).status,
      ).toBe(200);
    });

    it('an anonymous write is 401 rest_forbidden whatever its body or query, a caller without the capability 403', async () => {
      const anonymous = [
        await client(service).post(`${NS}/tags`).send({ name: 'a\u0000b' }),
        await client(service)
          .post(`${NS}/events`)
          .send({ title: 'a\u0000b', ...when }),
        await client(service).delete(`${NS}/events/1?password[length]=`),
        await client(service).patch(`${NS}/venues/1?i18n_language[a]=en`).send({ phone: '1' }),
      ];
      for (const res of anonymous) expect([res.status, res.body.code]).toEqual([401, 'rest_forbidden']);
      const subscriber = await client(service)
        .post(`${NS}/tags`)
        .auth(...service.as('subscriber'))
        .send({ name: 'a\u0000b' });
      expect([subscriber.status, subscriber.body.code]).toEqual([403, 'rest_forbidden']);
    });
  });

  describe('text longer than its PostgreSQL column (was 500: value too long for type character varying)', () => {
    it('a 300-character Basic login is 401 invalid_username', async () => {
      const res = await client(service)
        .get(`${NS}/tags`)
        .set('Authorization', basic(`${'x'.repeat(300)}:password`));
      expectError(res, [401]);
      expect(res.body.code).toBe('invalid_username');
    });

    it('a 250-character tag name is stored, or 400 naming name', async () => {
      expectStoredOrInvalid(
        await client(service)
          .post(`${NS}/tags`)
          .auth(...admin())
          .send({ name: 't'.repeat(250) }),
        201,
        'name',
      );
    });

    it('a 300-character event password is stored, or 400 naming password', async () => {
      const res = await client(service)
        .post(`${NS}/events`)
        .auth(...admin())
        .send({ title: 'Long password', ...when, password: 'p'.repeat(300) });
      expectStoredOrInvalid(res, 201, 'password');
    });

    // venues and organizers of the same name are one record (duplicate reuse): names that differ after 300 characters
    it.each([
      ['/events', 'title', when],
      ['/venues', 'venue', {}],
      ['/organizers', 'organizer', {}],
    ])(
      'two %s records whose 300-character names differ only at the end get distinct slugs of at most 200 characters',
      async (path, field, rest) => {
        const slugs: string[] = [];
        for (const end of ['', ' bis']) {
          const res = await client(service)
            .post(`${NS}${path}`)
            .auth(...admin())
            .send({ ...rest, [field]: `${field[0].repeat(300)}${end}` });
          expect(res.status).toBe(201);
          slugs.push(res.body.slug);
        }
        expect(slugs[0]).not.toBe(slugs[1]);
        for (const slug of slugs) expect(slug.length).toBeLessThanOrEqual(200);
      },
    );
  });

  describe('geolocation near tiny coordinates (was 500 on PostgreSQL: value out of range: underflow)', () => {
    it.each([
      ['0', '0'],
      ['1e-323', '0'],
    ])('GET /events?geoloc_lat=%s&geoloc_lng=%s finds the event of a venue at (1e-200, 1e-200)', async (lat, lng) => {
      const tomorrow = new Date(Date.parse(TEST_NOW) + 86_400_000).toISOString().slice(0, 10);
      const venue = (
        await client(service)
          .post(`${NS}/venues`)
          .auth(...admin())
          .send({ venue: `Null Island ${lat}`, geo_lat: 1e-200, geo_lng: 1e-200 })
      ).body;
      const event = (
        await client(service)
          .post(`${NS}/events`)
          .auth(...admin())
          .send({
            title: `Near zero ${lat}`,
            start_date: `${tomorrow} 10:00:00`,
            end_date: `${tomorrow} 11:00:00`,
            venue: venue.id,
          })
      ).body;
      const res = await client(service).get(`${NS}/events?geoloc_lat=${lat}&geoloc_lng=${lng}&geoloc_radius=1`);
      expect(res.status).toBe(200);
      expect(res.body.events.map((e: { id: number }) => e.id)).toContain(event.id);
    });
  });

  describe('what Schemathesis (a spec fuzzer) found', () => {
    it.each(['/events', '/events/ical', '/events/occurrences'])(
      'an unknown event id on %s/{id} is 404 rest-event-not-found, as on /events/{id}',
      async (path) => {
        for (const id of [0, 999_999, 2_147_483_647]) {
          const res = await client(service)
            .get(`${NS}${path}/${id}`)
            .auth(...admin());
          expectError(res, [404]);
          expect([path, id, res.body.code]).toEqual([path, id, 'rest-event-not-found']);
        }
      },
    );

    it.each(['/events', '/events/ical', '/events/occurrences'])(
      'the id of a venue on %s/{id} is 400 rest-invalid-event-id, as on /events/{id}',
      async (path) => {
        const venue = (
          await client(service)
            .post(`${NS}/venues`)
            .auth(...admin())
            .send({ venue: `Hall ${path}` })
        ).body;
        const res = await client(service)
          .get(`${NS}${path}/${venue.id}`)
          .auth(...admin());
        expectError(res, [400]);
        expect(res.body.code).toBe('rest-invalid-event-id');
      },
    );

    // the spec declared every flag value, and the service refused the true ones: the spec now admits only `false`
    it.each(['true', 'TRUE', '1'])(
      "ticketed=%s is refused on both lists with the plugin's sub-error",
      async (value) => {
        for (const path of ['/events', '/events/ical']) {
          const res = await client(service).get(`${NS}${path}?ticketed=${value}`);
          expectInvalid(res, 'ticketed');
          expect(res.body).toMatchObject({ data: { details: { ticketed: { code: 'event-tickets-not-active' } } } });
        }
      },
    );

    // was 500: the timestamp reads as the year -32572, which no wall clock holds, and the window's rounding threw
    it.each(['ends_before=-1090031991948', 'start_date=253402300800', 'starts_after=%2B10000%20years'])(
      '%s, a date outside four-digit years, is 400 naming it on both lists',
      async (query) => {
        for (const path of ['/events', '/events/ical']) {
          const res = await client(service).get(`${NS}${path}?${query}`);
          expectInvalid(res, query.split('=')[0]);
        }
      },
    );

    // the spec now says the bound the service keeps (a safe integer), so the fuzzer no longer sends 1.7e22 as valid
    it.each(['/events', '/venues', '/organizers', '/webhooks'])(
      'per_page past 2^53 − 1 is 400 naming it on %s',
      async (path) => {
        const past = await client(service)
          .get(`${NS}${path}?per_page=17477928308745233760256`)
          .auth(...admin());
        expectInvalid(past, 'per_page');
        const at = await client(service)
          .get(`${NS}${path}?per_page=9007199254740991`)
          .auth(...admin());
        expect([path, at.status]).toEqual([path, 200]);
      },
    );

    it('an Idempotency-Key beyond visible ASCII is 400 with its own message, naming the header as the spec does', async () => {
      const res = await client(service)
        .post(`${NS}/tags`)
        .auth(...admin())
        .set('Idempotency-Key', 'caf\u00e9')
        .send({ name: 'Keyed' });
      expectInvalid(res, 'Idempotency-Key');
      expect(res.body.data?.params).toEqual({ 'Idempotency-Key': expect.stringContaining('255') });
    });

    // an item of `status` may itself be a list, so a count of values was a refusal of a well-formed request
    it.each(['/events', '/venues', '/organizers'])(
      'status items that are lists are taken whatever their count on %s',
      async (path) => {
        const query = Array.from({ length: 12 }, () => 'status[]=%20draft%20,publish,%20trash').join('&');
        const res = await client(service)
          .get(`${NS}${path}?${query}`)
          .auth(...admin());
        expect([path, res.status]).toEqual([path, 200]);
        const joined = await client(service)
          .get(`${NS}${path}?status=${Array.from({ length: 30 }, () => 'publish').join(',')}`)
          .auth(...admin());
        expect([path, joined.status]).toEqual([path, 200]);
      },
    );

    it.each(['false', 'FALSE', '0'])('ticketed=%s is accepted on both lists', async (value) => {
      for (const path of ['/events', '/events/ical']) {
        const res = await client(service).get(`${NS}${path}?ticketed=${value}`);
        expect([path, res.status]).toEqual([path, 200]);
      }
    });
  });
});
