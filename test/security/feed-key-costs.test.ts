/**
 * What a feed key may cost, through HTTP on every engine: a verified key is remembered as Basic remembers a
 * credential (many keyed reads, concurrent ones included, pay one slow hash), each key has its own allowance of
 * requests a minute (429 with Retry-After beyond it), and a revoked key is refused at the next request.
 */
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';
import type { AppContext } from '../../src/http/context';

const KEY_REQUESTS = 8;

describe.each(ENGINES)('feed key costs on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine, { FEED_KEY_MAX_REQUESTS: String(KEY_REQUESTS) });
  });
  afterAll(() => service.close());

  const newKey = async (role: 'editor' | 'subscriber' = 'subscriber') => {
    const created = await http(service)
      .post(`${NS}/users/me/application-passwords`)
      .auth(...service.as(role))
      .send({ name: 'Calendar app' });
    expect(created.status).toBe(201);
    return { key: `${service.users[role].login}:${created.body.password}`, uuid: created.body.uuid as string };
  };
  const feed = (key: string) => http(service).get(`${NS}/events/ical`).query({ key });
  const slowHashes = async () => {
    const { registry } = (service.app.locals.context as AppContext).metrics;
    const text = await registry.getSingleMetricAsString('auth_password_checks_total');
    return Number(/^auth_password_checks_total (\d+)$/m.exec(text)?.[1] ?? 0);
  };

  it('pays one slow hash for many keyed reads with one key, concurrent ones included', async () => {
    const { key } = await newKey();
    const before = await slowHashes();
    const concurrent = await Promise.all([feed(key), feed(key), feed(key), feed(key)]);
    expect(concurrent.map((res) => res.status)).toEqual([200, 200, 200, 200]);
    for (let i = 0; i < 3; i++) expect((await feed(key)).status).toBe(200);
    expect((await slowHashes()) - before).toBe(1);
  });

  it('answers 429 with Retry-After past a key’s allowance, and other keys go on', async () => {
    const { key } = await newKey();
    for (let i = 0; i < KEY_REQUESTS; i++) expect((await feed(key)).status).toBe(200);
    const refused = await feed(key);
    expect([refused.status, refused.body.code, refused.body.data.status]).toEqual([429, 'rest_too_many_requests', 429]);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    const other = await newKey('editor');
    expect((await feed(other.key)).status).toBe(200);
    const basic = await http(service)
      .get(`${NS}/events`)
      .auth(...service.as('subscriber'));
    expect(basic.status).toBe(200);
  });

  it('refuses a revoked key at the next request, though it was remembered', async () => {
    const { key, uuid } = await newKey();
    expect((await feed(key)).status).toBe(200);
    const revoked = await http(service)
      .delete(`${NS}/users/me/application-passwords/${uuid}`)
      .auth(...service.as('subscriber'));
    expect(revoked.status).toBe(200);
    const refused = await feed(key);
    expect([refused.status, refused.body.code]).toEqual([401, 'incorrect_password']);
  });

  it("never takes a user's own password as a key, even right after Basic verified it", async () => {
    const own = service.as('author');
    expect(
      (
        await http(service)
          .get(`${NS}/events`)
          .auth(...own)
      ).status,
    ).toBe(200);
    const refused = await feed(own.join(':'));
    expect([refused.status, refused.body.code]).toEqual([401, 'incorrect_password']);
  });
});
