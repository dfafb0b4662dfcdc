/**
 * Authentication and throttling through HTTP, on every engine (docs/compatibility.md §2.1, §3.1; docs/decisions.md D32,
 * D6).
 */
import { createHash } from 'node:crypto';
import { ENGINES } from '../support/engines';
import { basic } from '../support/kit';
import { http, NS, startService, type TestService } from '../support/app';

describe.each(ENGINES)('authentication on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine, { LOGIN_MAX_FAILURES: '5', LOGIN_FAILURE_WINDOW_SECONDS: '600' });
  });
  afterAll(() => service.close());

  it('answers reads anonymously', async () => {
    expect((await http(service).get(`${NS}/categories`)).status).toBe(200);
  });

  it('answers a wrong password with 401 incorrect_password on any route, reads included', async () => {
    for (const path of [`${NS}/categories`, `${NS}/`, `${NS}/doc`, `${NS}/no-such-route`]) {
      const res = await http(service).get(path).auth(service.users.author.login, 'wrong');
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'incorrect_password', data: { status: 401 } });
    }
    // a successful login clears the login's failures
    expect(
      (
        await http(service)
          .get(`${NS}/categories`)
          .auth(...service.as('author'))
      ).status,
    ).toBe(200);
  });

  it('answers an unknown login with 401 invalid_username', async () => {
    const res = await http(service).get(`${NS}/categories`).auth('nobody-here', 'whatever');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('invalid_username');
  });

  it('answers malformed Basic credentials with 401 and ignores other schemes', async () => {
    for (const header of ['Basic', 'Basic !!!', basic('no-colon'), basic(':empty-login')]) {
      const res = await http(service).get(`${NS}/categories`).set('Authorization', header);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('rest_invalid_authorization');
    }
    expect((await http(service).get(`${NS}/categories`).set('Authorization', 'Bearer abc')).status).toBe(200);
    expect(
      (await http(service).post(`${NS}/categories`).set('Authorization', 'Bearer abc').send({ name: 'x' })).status,
    ).toBe(401);
  });

  it('accepts passwords with colons and non-ASCII characters', async () => {
    const { createUser } = await import('../../src/users/repository');
    await createUser(service.database.db, 'ünïcode', 'editor', 'pa:ss wörd');
    const res = await http(service)
      .post(`${NS}/tags`)
      .set('Authorization', basic('ünïcode:pa:ss wörd'))
      .send({ name: 'Colon tag' });
    expect(res.status).toBe(201);
  });

  it('throttles repeated failures of one login with 429 and Retry-After, even for the right password', async () => {
    const { login, password } = service.users.subscriber;
    for (let i = 0; i < 5; i++)
      expect((await http(service).get(`${NS}/tags`).auth(login, `bad-${i}`)).status).toBe(401);
    for (const attempt of ['bad-again', password]) {
      const res = await http(service).get(`${NS}/tags`).auth(login, attempt);
      expect(res.status).toBe(429);
      expect(res.body).toMatchObject({ code: 'rest_too_many_requests', data: { status: 429 } });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(600);
    }
    // other logins are not affected
    expect(
      (
        await http(service)
          .get(`${NS}/tags`)
          .auth(...service.as('editor'))
      ).status,
    ).toBe(200);
  });

  it('throttles an address that fails with many logins', async () => {
    const other = await startService(engine, { LOGIN_MAX_FAILURES: '1' });
    try {
      // one failure per login, five per address (the address allowance is five times the login's)
      for (let i = 0; i < 5; i++)
        expect((await http(other).get(`${NS}/tags`).auth(`guess-${i}`, 'x')).status).toBe(401);
      const res = await http(other)
        .get(`${NS}/tags`)
        .auth(...other.as('editor'));
      expect(res.status).toBe(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect((await http(other).get(`${NS}/tags`)).status).toBe(200); // anonymous reads go on
    } finally {
      await other.close();
    }
  });

  it('keeps the throttle state in the database, shared by every node', async () => {
    const rows = await service.database.db('auth_throttle').select('key');
    const digest = createHash('sha256').update(service.users.subscriber.login).digest('base64url');
    expect(rows.map((r: { key: string }) => r.key)).toContain(`login:${digest}`);
  });
});
