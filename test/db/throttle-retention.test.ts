/**
 * The login throttle's counters (`auth_throttle`) are deleted by the retention purge once their window has ended,
 * and not before: a client locked out by failed logins stays locked until then, and logs in after.
 */
import { purgeExpired } from '../../src/audit/repository';
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';

describe.each(ENGINES)('expired login throttle counters on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine, { LOGIN_MAX_FAILURES: '2' });
  });
  afterAll(() => service.close());

  const counters = () => service.database.db('auth_throttle').select('key', 'expire');
  const asEditor = (password: string) =>
    http(service).get(`${NS}/users/me/application-passwords`).auth(service.users.editor.login, password);

  it('keeps counters within their window, deletes them after it, and the client may log in again', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await asEditor('wrong')).status);
    expect(statuses).toEqual([401, 401, 429]);
    const held = await counters();
    expect(held.length).toBeGreaterThanOrEqual(3); // this login from this client, the client, the login

    expect((await purgeExpired(service.database.db, 365)).throttle).toBe(0);
    expect(await counters()).toHaveLength(held.length);
    expect((await asEditor(service.users.editor.password)).status).toBe(429);

    // every window ends (the counters' own clock is the process's, as rate-limiter-flexible stamps them)
    await service.database.db('auth_throttle').update({ expire: Date.now() - 1 });
    expect((await purgeExpired(service.database.db, 365)).throttle).toBe(held.length);
    expect(await counters()).toHaveLength(0);
    expect((await asEditor(service.users.editor.password)).status).toBe(200);
  });

  it('keeps a counter that has no expiry', async () => {
    await service.database.db('auth_throttle').insert({ key: 'no-expiry', points: 1, expire: null });
    await purgeExpired(service.database.db, 365);
    expect((await counters()).map((row) => row.key)).toContain('no-expiry');
  });
});
