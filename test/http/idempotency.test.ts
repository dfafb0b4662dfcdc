/**
 * `Idempotency-Key` on creates, on each engine (issue 14): replay with `Idempotent-Replayed: true` and nothing
 * written, another body 422, a repeat while the first runs 409, keys per caller, expiry after 24 hours (service
 * clock), failed creates not remembered.
 */
import { ENGINES } from '../support/engines';
import { http, NS, startService, TEST_NOW, type TestService } from '../support/app';
import { clockStartingAt, manualClock, setClock } from '../../src/domain/clock';
import { utcNow } from '../../src/db/dialect';

describe.each(ENGINES)('idempotent creates on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => { service = await startService(engine); });
  afterAll(() => service.close());
  afterEach(() => setClock(clockStartingAt(TEST_NOW)));

  let n = 0;
  const event = (title = `Idempotent ${++n}`) => ({ title, start_date: TEST_NOW, end_date: TEST_NOW, status: 'publish' });
  const post = (path: string, key: string | undefined, body: object, role: 'administrator' | 'editor' = 'administrator') => {
    const req = http(service).post(`${NS}/${path}`).auth(...service.as(role));
    return (key === undefined ? req : req.set('Idempotency-Key', key)).send(body);
  };
  const count = async (title: string) => Number((await service.database.db('posts').where({ title }).count({ n: '*' }))[0].n);

  it('a repeat answers the stored status and body with Idempotent-Replayed and writes nothing', async () => {
    const body = event();
    const first = await post('events', 'key-replay', body);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post('events', 'key-replay', { ...body });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await count(body.title)).toBe(1);
    // the same key from another caller is another key
    const other = await post('events', 'key-replay', body, 'editor');
    expect(other.status).toBe(201);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(await count(body.title)).toBe(2);
  });

  it('keeps Location on replays of term creates; fields in another order are the same body', async () => {
    const first = await post('categories', '"quoted-key"', { name: 'Idempotent category', description: 'x' });
    expect(first.status).toBe(201);
    const again = await post('categories', 'quoted-key', { description: 'x', name: 'Idempotent category' });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(first.headers.location);
  });

  it('the same key with another body is 422 and writes nothing', async () => {
    expect((await post('venues', 'key-body', { venue: 'Hall one' })).status).toBe(201);
    const changed = await post('venues', 'key-body', { venue: 'Hall two' });
    expect(changed.status).toBe(422);
    expect(changed.body).toMatchObject({ code: 'rest_idempotency_key_reused', data: { status: 422 } });
    expect(await count('Hall two')).toBe(0);
  });

  it('a repeat while the first is still running is 409', async () => {
    // a claim without an answer: another request (on any node) is creating with this key right now
    const body = event();
    const running = await post('organizers', 'key-running', { organizer: 'Probe' });
    expect(running.status).toBe(201);
    await service.database.db('idempotency_keys').where({ key: 'key-running' }).update({ status: null, body: null, created_utc: utcNow() });
    const busy = await post('organizers', 'key-running', { organizer: 'Probe' });
    expect(busy.status).toBe(409);
    expect(busy.body).toMatchObject({ code: 'rest_idempotency_key_in_progress', data: { status: 409 } });
    // concurrent repeats: one create, every other answer a replay or 409
    const answers = await Promise.all([1, 2, 3, 4].map(() => post('events', 'key-concurrent', body)));
    expect(answers.every((a) => a.status === 201 || a.status === 409)).toBe(true);
    expect(answers.filter((a) => a.status === 201 && !a.headers['idempotent-replayed'])).toHaveLength(1);
    expect(await count(body.title)).toBe(1);
  });

  it('failed creates are not remembered; keys expire after 24 hours by the service clock', async () => {
    const bad = await post('events', 'key-fix', { title: 'No dates' });
    expect(bad.status).toBe(400);
    const body = event();
    expect((await post('events', 'key-fix', body)).status).toBe(201);
    const clock = manualClock(new Date(Date.parse(TEST_NOW) + 23 * 3600_000));
    setClock(clock);
    expect((await post('events', 'key-fix', body)).headers['idempotent-replayed']).toBe('true');
    clock.advance(2 * 3600_000);
    const later = await post('events', 'key-fix', body);
    expect(later.status).toBe(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(await count(body.title)).toBe(2);
  });

  it('refuses a malformed key', async () => {
    const res = await post('tags', 'has space', { name: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.data.params).toHaveProperty(['Idempotency-Key']);
  });
});
