/**
 * Application passwords through HTTP, on each engine: create (shown once), use with Basic, last use
 * recorded at most once a minute, read-only scope, revoke one and all (refused at once, even when remembered),
 * administrators under /users/{id}, the login throttle, feed keys (`login:password`) and their redaction in logs.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { ENGINES } from '../support/engines';
import { http, NS, startService, TEST_NOW, type TestService } from '../support/app';
import { clockStartingAt, manualClock, setClock } from '../../src/domain/clock';
import { createUser } from '../../src/users/repository';
import { maskSecrets } from '../../src/http/request-log';

const ALPHABET = /^[ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789]{24}$/;

describe.each(ENGINES)('application passwords on %s', (engine) => {
  let service: TestService;
  const logs: string[] = [];
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        logs.push(String(chunk));
        done();
      },
    });
    service = await startService(engine, { LOGIN_MAX_FAILURES: '3' }, pino({ level: 'info' }, sink));
  });
  afterAll(() => service.close());
  afterEach(() => setClock(clockStartingAt(TEST_NOW)));

  const mine = `${NS}/users/me/application-passwords`;
  const create = (auth: [string, string], body: object, path = mine) =>
    http(service)
      .post(path)
      .auth(...auth)
      .send(body);
  const editor = () => service.as('editor');

  it('creates one shown once, lists it without the secret, and it works with Basic in place of the password', async () => {
    const res = await create(editor(), { name: 'Deploy script' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Deploy script', scope: null, last_used: null, last_ip: null });
    expect(res.body.password).toMatch(ALPHABET);
    expect(res.body.created).toMatch(/^2027-06-15T12:\d\d:\d\dZ$/);
    const list = await http(service)
      .get(mine)
      .auth(...editor());
    expect(list.status).toBe(200);
    const listed = list.body.find((p: { uuid: string }) => p.uuid === res.body.uuid);
    expect(listed).toEqual({
      uuid: res.body.uuid,
      name: 'Deploy script',
      created: res.body.created,
      last_used: null,
      last_ip: null,
      scope: null,
    });
    expect(JSON.stringify(list.body)).not.toContain(res.body.password);
    // the stored hash is scrypt, never the secret
    const stored = await service.database.db('app_passwords').where({ uuid: res.body.uuid }).first();
    expect(stored.password_hash).toMatch(/^scrypt\$/);
    // with the user's role; spaces (WordPress shows it in groups of four) are ignored
    const spaced = (res.body.password as string).replace(/(.{4})(?!$)/g, '$1 ');
    const write = await http(service)
      .post(`${NS}/categories`)
      .auth(service.users.editor.login, spaced)
      .send({ name: 'Made by a script' });
    expect(write.status).toBe(201);
    const used = await http(service)
      .get(mine)
      .auth(...editor());
    expect(used.body.find((p: { uuid: string }) => p.uuid === res.body.uuid)).toMatchObject({
      last_ip: expect.stringMatching(/127\.0\.0\.1/),
      last_used: expect.any(String),
    });
  });

  it('records the last use at most once a minute', async () => {
    const clock = manualClock(TEST_NOW);
    setClock(clock);
    const { body } = await create(editor(), { name: 'Poller' });
    const use = () =>
      http(service)
        .get(`${NS}/categories?hide_empty=false`)
        .auth(service.users.editor.login, body.password)
        .expect(200);
    const lastUsed = async () =>
      (await service.database.db('app_passwords').where({ uuid: body.uuid }).first()).last_used_utc;
    await use();
    const first = await lastUsed();
    expect(first).toBe('2027-06-15 12:00:00');
    clock.advance(30_000);
    await use();
    expect(await lastUsed()).toBe(first);
    clock.advance(31_000);
    await use();
    expect(await lastUsed()).toBe('2027-06-15 12:01:01');
  });

  it('scope read: reads work, any write is 403', async () => {
    const { body } = await create(editor(), { name: 'Dashboard', scope: 'read' });
    expect(body.scope).toBe('read');
    const auth: [string, string] = [service.users.editor.login, body.password];
    expect(
      (
        await http(service)
          .get(mine)
          .auth(...auth)
      ).status,
    ).toBe(200);
    const write = await http(service)
      .post(`${NS}/tags`)
      .auth(...auth)
      .send({ name: 'Not allowed' });
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({ code: 'rest_forbidden', message: 'This application password may only read.' });
    expect((await create(auth, { name: 'Escalate' })).status).toBe(403);
    expect(
      (
        await http(service)
          .delete(mine)
          .auth(...auth)
      ).status,
    ).toBe(403);
  });

  it('revoked passwords are refused at once, even when remembered; revoke all', async () => {
    const one = (await create(editor(), { name: 'Short-lived' })).body;
    const two = (await create(editor(), { name: 'Another' })).body;
    const use = (password: string) => http(service).get(mine).auth(service.users.editor.login, password);
    expect((await use(one.password)).status).toBe(200); // now remembered by the credential cache
    const revoked = await http(service)
      .delete(`${mine}/${one.uuid}`)
      .auth(...editor());
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ deleted: true, previous: { uuid: one.uuid, name: 'Short-lived' } });
    expect((await use(one.password)).status).toBe(401);
    expect(
      (
        await http(service)
          .delete(`${mine}/${one.uuid}`)
          .auth(...editor())
      ).body.code,
    ).toBe('rest_application_password_not_found');
    expect((await use(two.password)).status).toBe(200);
    const all = await http(service)
      .delete(mine)
      .auth(...editor());
    expect(all.body.deleted).toBe(true);
    expect(all.body.count).toBeGreaterThanOrEqual(1);
    expect((await use(two.password)).status).toBe(401);
    expect(
      (
        await http(service)
          .get(mine)
          .auth(...editor())
      ).body,
    ).toEqual([]);
  });

  it("administrators manage any user's under /users/{id}; others only their own", async () => {
    const path = `${NS}/users/${service.users.author.id}/application-passwords`;
    const made = await create(service.as('administrator'), { name: 'For the author' }, path);
    expect(made.status).toBe(201);
    const author = await http(service)
      .get(mine)
      .auth(...service.as('author'));
    expect(author.body.map((p: { uuid: string }) => p.uuid)).toContain(made.body.uuid);
    expect(
      (
        await http(service)
          .get(path)
          .auth(...service.as('author'))
      ).status,
    ).toBe(200); // themselves
    expect(
      (
        await http(service)
          .get(path)
          .auth(...editor())
      ).status,
    ).toBe(403);
    expect((await http(service).get(path)).status).toBe(401);
    expect(
      (
        await http(service)
          .get(`${NS}/users/999999/application-passwords`)
          .auth(...service.as('administrator'))
      ).body.code,
    ).toBe('rest_user_invalid_id');
    const gone = await http(service)
      .delete(`${path}/${made.body.uuid}`)
      .auth(...service.as('administrator'));
    expect(gone.status).toBe(200);
    expect(
      (
        await http(service)
          .delete(path)
          .auth(...service.as('administrator'))
      ).body,
    ).toEqual({ deleted: true, count: 0 });
    expect((await create(service.as('administrator'), { name: '  ' }, path)).status).toBe(400);
  });

  it('the login throttle covers application passwords', async () => {
    await createUser(service.database.db, 'throttled-user', 'author', 'a long user password');
    const { body } = await create(['throttled-user', 'a long user password'], { name: 'Script' });
    const wrong = body.password.slice(0, -1) + (body.password.endsWith('A') ? 'B' : 'A');
    for (let i = 0; i < 3; i++) expect((await http(service).get(mine).auth('throttled-user', wrong)).status).toBe(401);
    const blocked = await http(service).get(mine).auth('throttled-user', body.password);
    expect(blocked.status).toBe(429);
    expect(blocked.headers['retry-after']).toBeDefined();
  });

  it('feed keys `login:password` authenticate calendar reads, and are redacted in logged URLs', async () => {
    const { body } = await create(editor(), { name: 'Calendar app', scope: 'read' });
    const feed = (key: string) => http(service).get(`${NS}/events/ical`).query({ key });
    expect((await feed(`${service.users.editor.login}:${body.password}`)).status).toBe(200);
    const wrong = await feed(`${service.users.editor.login}:not-it`);
    expect([wrong.status, wrong.body.code]).toEqual([401, 'incorrect_password']);
    const malformed = await feed('no-colon');
    expect([malformed.status, malformed.body.code]).toEqual([401, 'rest_invalid_authorization']);

    expect(maskSecrets('/feed.ics?key=ed%3Asecret&x=1&api_key=z')).toBe('/feed.ics?key=[redacted]&x=1&api_key=z');
    const secret = `${service.users.editor.login}:${body.password}`;
    await http(service).get(`${NS}/events?key=${encodeURIComponent(secret)}&per_page=1`);
    const line = logs.find((l) => l.includes('per_page=1') && l.includes('key='));
    expect(line).toContain('key=[redacted]');
    expect(logs.join('\n')).not.toContain(body.password);
  });
});
