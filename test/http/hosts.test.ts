/**
 * The host a request names is copied into its URLs and cache keys only when fit: well formed always, and one of
 * ALLOWED_HOSTS when that is set (`X-Forwarded-Host` counting under TRUST_PROXY only); any other is 400
 * `rest_invalid_host`. Without a list, representations are kept for a bounded number of roots: made-up hosts are
 * answered, rendered afresh, and do not multiply the cache's entries.
 */
import { MAX_ROOTS } from '../../src/cache/representations';
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';

const TOKEN = 'a scrape secret';

describe.each(ENGINES)('allowed hosts on %s', (engine) => {
  let service: TestService;
  let venueId: number;
  beforeAll(async () => {
    service = await startService(engine, { ALLOWED_HOSTS: 'calendar.example.org, 127.0.0.1', TRUST_PROXY: '1' });
    venueId = await createHall(service);
  });
  afterAll(() => service.close());

  const read = (host: string) => http(service).get(`${NS}/venues/${venueId}`).set('Host', host);

  it('answers a listed host, on any port when the list names no port, and builds its URLs on it', async () => {
    const answer = await read('calendar.example.org:8443');
    expect(answer.status).toBe(200);
    expect(answer.body.url).toMatch(/^http:\/\/calendar\.example\.org:8443\//);
  });

  it('refuses any other host with 400 rest_invalid_host, on every route but the probes', async () => {
    for (const route of [`${NS}/venues/${venueId}`, `${NS}/`, '/mcp', '/']) {
      const answer = await http(service).get(route).set('Host', 'attacker.example');
      expect([route, answer.status, answer.body.code]).toEqual([route, 400, 'rest_invalid_host']);
    }
    const refused = await read('attacker.example');
    expect(refused.body).toEqual({
      code: 'rest_invalid_host',
      message: 'This service does not answer for the host named in the request.',
      data: { status: 400 },
    });
    expect((await http(service).get('/livez').set('Host', '10.0.0.7:8080')).status).toBe(200);
    expect((await http(service).get('/readyz').set('Host', '10.0.0.7:8080')).status).toBe(200);
  });

  it('judges X-Forwarded-Host under TRUST_PROXY', async () => {
    const forwarded = (host: string) => read('127.0.0.1').set('X-Forwarded-Host', host);
    expect((await forwarded('attacker.example')).status).toBe(400);
    const allowed = await forwarded('calendar.example.org');
    expect(allowed.status).toBe(200);
    expect(allowed.body.url).toMatch(/^http:\/\/calendar\.example\.org\//);
  });
});

describe.each(ENGINES)('hosts without a list on %s', (engine) => {
  let service: TestService;
  let venueId: number;
  beforeAll(async () => {
    service = await startService(engine, { METRICS_TOKEN: TOKEN });
    venueId = await createHall(service);
  });
  afterAll(() => service.close());

  const gauge = async (name: string) => {
    const text = (await http(service).get('/metrics').set('Authorization', `Bearer ${TOKEN}`)).text;
    return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
  };

  it('refuses a malformed host', async () => {
    const answer = await http(service).get(`${NS}/venues/${venueId}`).set('Host', 'x"><script>');
    expect([answer.status, answer.body.code]).toEqual([400, 'rest_invalid_host']);
  });

  it('answers made-up hosts, but keeps representations for a bounded number of roots', async () => {
    const hosts = Array.from({ length: MAX_ROOTS + 8 }, (_, i) => `h${i}.example`);
    for (const host of hosts) {
      const answer = await http(service).get(`${NS}/venues/${venueId}`).set('Host', host.toUpperCase());
      expect([answer.status, answer.body.url.startsWith(`http://${host}/`)]).toEqual([200, true]);
    }
    expect(await gauge('representation_cache_entries')).toBeLessThanOrEqual(MAX_ROOTS);
    const again = await http(service).get(`${NS}/venues/${venueId}`).set('Host', hosts[0]);
    expect(again.status).toBe(200);
  });
});

/** One venue, made by the administrator: the record both suites read. */
async function createHall(service: TestService): Promise<number> {
  const venue = await http(service)
    .post(`${NS}/venues`)
    .auth(...service.as('administrator'))
    .send({ venue: 'Hall' });
  return venue.body.id;
}
