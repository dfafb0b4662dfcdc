/**
 * Feed keys (a red team's finding) through HTTP on every engine: `?key=<login>:<application password>` on the
 * calendar reads authenticates like Basic, read-only, only with application passwords, answered `no-store`; a wrong
 * key is 401 and counts in the login throttle; writes and JSON answers never take a key.
 */
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';
import { createUser } from '../../src/users/repository';

const FAILURES = 3;

describe.each(ENGINES)('feed keys on %s', (engine) => {
  let service: TestService;
  let key: string;
  let fullKey: string;
  let secret: { id: number; slug: string };
  beforeAll(async () => {
    service = await startService(engine, { LOGIN_MAX_FAILURES: String(FAILURES) });
    const password = async (scope?: 'read') =>
      (
        await http(service)
          .post(`${NS}/users/me/application-passwords`)
          .auth(...service.as('editor'))
          .send({ name: 'Calendar app', ...(scope ? { scope } : {}) })
      ).body.password as string;
    key = `${service.users.editor.login}:${await password('read')}`;
    fullKey = `${service.users.editor.login}:${await password()}`;
    const created = await http(service)
      .post(`${NS}/events`)
      .auth(...service.as('editor'))
      .send({
        title: 'Private board meeting',
        status: 'private',
        start_date: '2027-06-20 10:00',
        end_date: '2027-06-20 11:00',
      });
    expect(created.status).toBe(201);
    secret = created.body;
  });
  afterAll(() => service.close());

  const calendar = (path: string, query: Record<string, string> = {}) =>
    http(service).get(`${NS}${path}`).query(query).set('Accept', 'text/calendar');
  const READS = () => [
    '/events/ical',
    `/events/ical/${secret.id}`,
    `/events/ical/by-slug/${secret.slug}`,
    '/events', // Accept: text/calendar
    `/events/${secret.id}`,
    `/events/by-slug/${secret.slug}`,
  ];

  it('a private event is in every calendar read with a key, and in none without', async () => {
    for (const path of READS()) {
      const keyed = await calendar(path, { key });
      expect([path, keyed.status, keyed.headers['content-type']]).toEqual([path, 200, 'text/calendar; charset=utf-8']);
      expect([path, /^SUMMARY[^:]*:Private board meeting\r?$/m.test(keyed.text)]).toEqual([path, true]);
      expect([path, keyed.headers['cache-control']]).toEqual([path, 'no-store']);
      const anonymous = await calendar(path);
      expect([path, anonymous.text.includes('Private board meeting')]).toEqual([path, false]);
    }
  });

  it("a user's own password is refused as a key (401), even though it is right", async () => {
    const own = `${service.users.author.login}:${service.users.author.password}`;
    const res = await calendar('/events/ical', { key: own });
    expect([res.status, res.body.code]).toEqual([401, 'incorrect_password']);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('a wrong key is 401 in the plugin shape and counts in the login throttle', async () => {
    const user = await createUser(service.database.db, 'feed-guesser', 'subscriber', 'the real password here');
    for (let i = 0; i < FAILURES; i++) {
      const res = await calendar('/events/ical', { key: `${user.login}:wrong-${i}` });
      expect([res.status, res.body.code, res.body.data.status]).toEqual([401, 'incorrect_password', 401]);
    }
    const blocked = await http(service).get(`${NS}/events`).auth(user.login, 'the real password here');
    expect([blocked.status, blocked.body.code]).toEqual([429, 'rest_too_many_requests']);
    const malformed = await calendar('/events/ical', { key: 'no-colon-here' });
    expect([malformed.status, malformed.body.code]).toEqual([401, 'rest_invalid_authorization']);
  });

  it('writes are impossible with a key, even one of a full-scope application password', async () => {
    const write = { title: 'Written with a key', start_date: '2027-06-21 10:00', end_date: '2027-06-21 11:00' };
    for (const k of [key, fullKey]) {
      const created = await http(service).post(`${NS}/events`).query({ key: k }).send(write);
      expect([created.status, created.body.code]).toEqual([401, 'rest_forbidden']);
      const patched = await http(service).patch(`${NS}/events/${secret.id}`).query({ key: k }).send({ title: 'x' });
      expect(patched.status).toBe(401);
      const removed = await http(service).delete(`${NS}/events/${secret.id}`).query({ key: k });
      expect(removed.status).toBe(401);
    }
    const still = await http(service)
      .get(`${NS}/events/${secret.id}`)
      .auth(...service.as('editor'));
    expect(still.body.title).toBe('Private board meeting');
  });

  it('JSON answers ignore a key: the private event stays hidden', async () => {
    const json = await http(service).get(`${NS}/events/${secret.id}`).query({ key: fullKey });
    expect(json.status).not.toBe(200);
    expect(json.body.code).not.toBe('incorrect_password');
  });
});
