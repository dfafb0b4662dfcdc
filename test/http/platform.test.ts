/** The platform through HTTP, on every engine: discovery, /doc, health, error mapping, body handling. */
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';

describe.each(ENGINES)('platform on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine, { BODY_LIMIT: '2kb' });
  });
  afterAll(() => service.close());

  const root = () => `http://127.0.0.1:${(service.server.address() as { port: number }).port}`;

  it('serves the OpenAPI 3.1 document at /doc with the namespace root as its server', async () => {
    const res = await http(service).get(`${NS}/doc`);
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.1');
    expect(res.body.info).toMatchObject({
      title: expect.any(String),
      version: '1.0.0',
      description: expect.any(String),
    });
    expect(res.body.servers[0].url).toBe(`${root()}${NS}`);
    const operations = Object.values(res.body.paths as Record<string, Record<string, unknown>>).flatMap((item) =>
      ['get', 'post', 'put', 'patch', 'delete'].filter((m) => item[m]),
    );
    expect(operations).toHaveLength(76);
    expect(res.body.paths['/events'].get).toBeDefined();
    expect(res.body.paths['/events/{id}'].get).toBeDefined();
  });

  it('serves the document in the language asked for, with the same structure', async () => {
    const english = (await http(service).get(`${NS}/doc`)).body;
    for (const [language, summary] of [
      ['ja', 'イベントの一覧を取得'],
      ['nl', expect.any(String)],
      ['de', expect.any(String)],
    ] as const) {
      const res = await http(service).get(`${NS}/doc`).query({ i18n_language: language });
      expect(res.headers['content-language']).toBe(language);
      expect(res.body.paths['/events'].get.summary).toEqual(summary);
      expect(res.body.paths['/events'].get.summary).not.toBe(english.paths['/events'].get.summary);
      expect(res.body.paths['/events'].get.parameters).toHaveLength(english.paths['/events'].get.parameters.length);
      expect(res.body.servers[0].url).toBe(english.servers[0].url);
    }
  });

  it('answers the namespace index, generated from the spec, with and without a trailing slash', async () => {
    for (const path of [NS, `${NS}/`]) {
      const res = await http(service).get(path);
      expect(res.status).toBe(200);
      expect(res.body.namespace).toBe('calendar/events/v1');
      expect(Object.keys(res.body.routes)).toEqual([
        '/calendar/events/v1',
        '/calendar/events/v1/doc',
        '/calendar/events/v1/events',
        '/calendar/events/v1/events/ical',
        '/calendar/events/v1/events/(?P<id>\\d+)',
        '/calendar/events/v1/events/ical/(?P<id>\\d+)',
        '/calendar/events/v1/events/occurrences/(?P<id>\\d+)',
        '/calendar/events/v1/events/by-slug/(?P<slug>[^/]+)',
        '/calendar/events/v1/events/ical/by-slug/(?P<slug>[^/]+)',
        '/calendar/events/v1/venues',
        '/calendar/events/v1/venues/(?P<id>\\d+)',
        '/calendar/events/v1/venues/by-slug/(?P<slug>[^/]+)',
        '/calendar/events/v1/organizers',
        '/calendar/events/v1/organizers/(?P<id>\\d+)',
        '/calendar/events/v1/organizers/by-slug/(?P<slug>[^/]+)',
        '/calendar/events/v1/categories',
        '/calendar/events/v1/categories/(?P<id>\\d+)',
        '/calendar/events/v1/tags',
        '/calendar/events/v1/tags/(?P<id>\\d+)',
        '/calendar/events/v1/changes',
        '/calendar/events/v1/changes/stream',
        '/calendar/events/v1/webhooks',
        '/calendar/events/v1/webhooks/(?P<id>\\d+)',
        '/calendar/events/v1/webhooks/(?P<id>\\d+)/ping',
        '/calendar/events/v1/webhooks/(?P<id>\\d+)/rotate-secret',
        '/calendar/events/v1/webhooks/(?P<id>\\d+)/deliveries',
        '/calendar/events/v1/webhooks/(?P<id>\\d+)/deliveries/(?P<delivery_id>\\d+)/retry',
        '/calendar/events/v1/audit',
        '/calendar/events/v1/users/me/application-passwords',
        '/calendar/events/v1/users/me/application-passwords/(?P<uuid>[^/]+)',
        '/calendar/events/v1/users/(?P<id>\\d+)/application-passwords',
        '/calendar/events/v1/users/(?P<id>\\d+)/application-passwords/(?P<uuid>[^/]+)',
      ]);
      const item = res.body.routes['/calendar/events/v1/categories/(?P<id>\\d+)'];
      expect(item.methods).toEqual(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
      expect(item.endpoints.map((e: { methods: string[] }) => e.methods)).toEqual([
        ['GET'],
        ['POST', 'PUT', 'PATCH'],
        ['DELETE'],
      ]);
      expect(item._links).toBeUndefined();
      const list = res.body.routes['/calendar/events/v1/categories'];
      expect(list._links.self[0].href).toBe(`${root()}${NS}/categories`);
      expect(list.endpoints[0].args.page).toMatchObject({ type: 'integer', default: 1, required: false });
      expect(list.endpoints[1].args.name).toMatchObject({ type: 'string', required: true });
      expect(res.body.routes['/calendar/events/v1'].endpoints[0].args.namespace).toMatchObject({
        default: 'calendar/events/v1',
        required: false,
      });
      expect(res.body._links.up[0].href).toBe(`${root()}/`);
    }
  });

  it('answers the service root with the discovery headers, also to HEAD', async () => {
    const res = await http(service).get('/');
    expect(res.status).toBe(200);
    expect(res.headers['x-tec-api-version']).toBe('v1');
    expect(res.headers['x-tec-api-root']).toBe(`${root()}${NS}/`);
    expect(res.headers['x-tec-api-origin']).toBe(root());
    expect(res.body.routes.spec).toBe(`${root()}${NS}/doc`);
    const head = await http(service).head('/');
    expect(head.status).toBe(200);
    expect(head.headers['x-tec-api-version']).toBe('v1');
  });

  it('answers HEAD on a list like GET, without a body', async () => {
    const res = await http(service).head(`${NS}/categories`);
    expect(res.status).toBe(200);
    expect(res.headers['x-tec-total']).toBeDefined();
    expect(res.text).toBeUndefined();
  });

  it('ignores a trailing slash', async () => {
    expect((await http(service).get(`${NS}/categories/`)).status).toBe(200);
  });

  it('reports liveness and readiness', async () => {
    expect((await http(service).get('/livez')).body).toEqual({ status: 'ok' });
    expect((await http(service).get('/readyz')).body).toEqual({ status: 'ready' });
  });

  it('sends a request id on every response, keeping a sane incoming one', async () => {
    expect((await http(service).get(`${NS}/tags`)).headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect((await http(service).get(`${NS}/tags`).set('X-Request-Id', 'trace-42')).headers['x-request-id']).toBe(
      'trace-42',
    );
    expect((await http(service).get(`${NS}/tags`).set('X-Request-Id', 'bad id!')).headers['x-request-id']).not.toBe(
      'bad id!',
    );
  });

  it.each([
    ['get', `${NS}/no-such-route`],
    ['get', '/nothing/here'],
    ['delete', `${NS}/categories`],
    ['put', `${NS}/tags`],
    ['get', `${NS}/events/by-slug/`],
    ['get', `${NS}/events/abc`],
    // the paths that moved so that none is ambiguous with the plugin's (D76) are gone
    ['get', `${NS}/events/1/ical`],
    ['get', `${NS}/events/by-slug/river-clean-up/ical`],
    ['get', `${NS}/events/1/occurrences`],
  ] as const)('answers %s %s with 404 rest_no_route', async (method, path) => {
    const res = await http(service)[method](path);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'rest_no_route', message: expect.any(String), data: { status: 404 } });
  });

  it('answers a body over the limit with 413', async () => {
    const res = await http(service)
      .post(`${NS}/tags`)
      .auth(...service.as('editor'))
      .send({ name: 'x', description: 'y'.repeat(5000) });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('rest_payload_too_large');
  });

  it('answers a JSON body that is not an object with 400', async () => {
    const res = await http(service)
      .post(`${NS}/tags`)
      .auth(...service.as('editor'))
      .set('Content-Type', 'application/json')
      .send('[1,2]');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('rest_invalid_param');
  });

  it('answers i18n_language outside the eleven codes with 400 naming it, on any operation', async () => {
    for (const path of [`${NS}/`, `${NS}/doc`, `${NS}/tags`, `${NS}/events`]) {
      const res = await http(service).get(path).query({ i18n_language: 'klingon' });
      expect(res.status).toBe(400);
      expect(res.body.data.params).toEqual({ i18n_language: expect.any(String) });
    }
    expect((await http(service).get(`${NS}/tags`).query({ i18n_language: 'pt-br' })).status).toBe(200);
  });

  it('answers a failing database with a plain 500, never a stack trace or SQL', async () => {
    const broken = await startService(engine);
    await broken.database.db.schema.renameTable('terms', 'terms_gone');
    const res = await http(broken).get(`${NS}/tags`).query({ hide_empty: 0 });
    await broken.database.db.schema.renameTable('terms_gone', 'terms');
    await broken.close();
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ code: 'rest_internal_error', message: expect.any(String), data: { status: 500 } });
    expect(JSON.stringify(res.body)).not.toMatch(/select|terms|at /i);
  });
});
