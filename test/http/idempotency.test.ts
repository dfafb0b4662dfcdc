/**
 * `Idempotency-Key` on creates, on each engine: replay with `Idempotent-Replayed: true` and nothing
 * written, another body 422, a repeat while the first runs 409, keys per caller, expiry after 24 hours (service
 * clock), failed creates not remembered.
 */
import { ENGINES } from '../support/engines';
import { http, NS, startService, TEST_NOW, type TestService } from '../support/app';
import { clockStartingAt, manualClock, setClock } from '../../src/domain/clock';
import { utcNow } from '../../src/db/dialect';
import type { Db } from '../../src/db/types';
import type { Engine } from '../support/engines';

/**
 * Makes every write of a create's answer onto its claim fail (a trigger), as if the process stopped between the
 * create's commit and that write; `false` removes the trigger.
 */
async function loseAnswers(engine: Engine, db: Db, on: boolean): Promise<void> {
  if (engine === 'sqlite') {
    await db.raw(
      on
        ? "create trigger lose_answers before update of body on idempotency_keys when new.body is not null begin select raise(abort, 'simulated crash'); end"
        : 'drop trigger lose_answers',
    );
    return;
  }
  if (on) {
    await db.raw(
      "create function lose_answers() returns trigger language plpgsql as $$ begin raise exception 'simulated crash'; end $$",
    );
    await db.raw(
      'create trigger lose_answers before update of body on idempotency_keys for each row when (new.body is not null) execute function lose_answers()',
    );
  } else {
    await db.raw('drop trigger lose_answers on idempotency_keys');
    await db.raw('drop function lose_answers()');
  }
}

describe.each(ENGINES)('idempotent creates on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine);
  });
  afterAll(() => service.close());
  afterEach(() => setClock(clockStartingAt(TEST_NOW)));

  let n = 0;
  const event = (title = `Idempotent ${++n}`) => ({
    title,
    start_date: TEST_NOW,
    end_date: TEST_NOW,
    status: 'publish',
  });
  const post = (
    path: string,
    key: string | undefined,
    body: object,
    role: 'administrator' | 'editor' = 'administrator',
  ) => {
    const req = http(service)
      .post(`${NS}/${path}`)
      .auth(...service.as(role));
    return (key === undefined ? req : req.set('Idempotency-Key', key)).send(body);
  };
  const count = async (title: string) =>
    Number((await service.database.db('posts').where({ title }).count({ n: '*' }))[0].n);

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
    await service.database
      .db('idempotency_keys')
      .where({ key: 'key-running' })
      .update({ status: null, body: null, created_utc: utcNow() });
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

  describe('a create whose answer was lost after its commit (the process stopped in between)', () => {
    const db = () => service.database.db;
    // path, resource, a body, where its name is stored, whether the create answers Location (terms only, as WordPress)
    const KINDS: Array<[string, string, () => object, [string, string], boolean]> = [
      ['events', 'event', () => event(), ['posts', 'title'], false],
      ['venues', 'venue', () => ({ venue: `Lost answer hall ${++n}`, city: 'Ghent' }), ['posts', 'title'], false],
      ['organizers', 'organizer', () => ({ organizer: `Lost answer club ${++n}` }), ['posts', 'title'], false],
      ['categories', 'category', () => ({ name: `Lost answer category ${++n}` }), ['terms', 'name'], true],
      ['tags', 'tag', () => ({ name: `Lost answer tag ${++n}` }), ['terms', 'name'], true],
    ];
    const named = async ([table, column]: [string, string], body: object) => {
      const name = Object.values(body)[0] as string; // title, venue, organizer or name: each body's first field
      return Number((await db()(table).where(column, name).count({ n: '*' }))[0].n);
    };

    it.each(KINDS)(
      'POST /%s: the record and its claim commit together; a retry answers that record anew',
      async (path, resource, make, table, located) => {
        const body = make();
        const key = `lost-answer-${path}`;
        const first = await post(path, key, body);
        expect(first.status).toBe(201);
        if (located)
          expect(first.headers.location).toMatch(
            new RegExp(`^http://127\\.0\\.0\\.1:\\d+${NS}/${path}/${first.body.id}$`),
          );
        else expect(first.headers.location).toBeUndefined();
        const claim = await db()('idempotency_keys').where({ key }).first();
        expect({ ...claim, record_id: Number(claim.record_id), status: Number(claim.status) }).toMatchObject({
          resource,
          record_id: first.body.id,
          status: 201,
          location: first.headers.location ?? null,
        });
        await db()('idempotency_keys').where({ key }).update({ body: null }); // only what the create's transaction wrote
        const again = await post(path, key, { ...body });
        expect(again.status).toBe(201);
        expect(again.headers['idempotent-replayed']).toBe('true');
        expect(again.headers.location).toBe(first.headers.location);
        expect(again.body).toEqual(first.body); // rendered by the create's own renderer, for the same caller
        expect(await named(table, body)).toBe(1);
      },
    );

    it('storing the answer fails after the commit: the caller still gets 201, and a retry past twice the request timeout replays the event', async () => {
      await loseAnswers(engine, db(), true);
      try {
        const body = event();
        const first = await post('events', 'key-crash', body);
        expect(first.status).toBe(201);
        expect(first.headers['idempotent-replayed']).toBeUndefined();
        expect((await db()('idempotency_keys').where({ key: 'key-crash' }).first()).body).toBeNull();
        setClock(manualClock(new Date(Date.parse(TEST_NOW) + 2 * service.config.requestTimeoutMs + 60_000)));
        const again = await post('events', 'key-crash', body);
        expect(again.status).toBe(201);
        expect(again.headers['idempotent-replayed']).toBe('true');
        expect(again.body.id).toBe(first.body.id);
        expect(again.body.title).toBe(body.title);
        expect(await count(body.title)).toBe(1);
      } finally {
        await loseAnswers(engine, db(), false);
      }
    });

    it('a claim without a record (its create never committed) is 409 until twice the request timeout, then taken over', async () => {
      const body = event();
      const done = await post('events', 'key-template', body); // a claim's fingerprint for this body, to copy
      const { fingerprint } = await db()('idempotency_keys').where({ key: 'key-template' }).first();
      const clock = manualClock(TEST_NOW);
      setClock(clock);
      await db()('idempotency_keys').insert({
        user_id: service.users.administrator.id,
        key: 'key-dead-node',
        fingerprint,
        status: null,
        created_utc: utcNow(),
      });
      clock.advance(2 * service.config.requestTimeoutMs - 1000);
      expect((await post('events', 'key-dead-node', body)).status).toBe(409);
      clock.advance(2000);
      const taken = await post('events', 'key-dead-node', body);
      expect(taken.status).toBe(201);
      expect(taken.headers['idempotent-replayed']).toBeUndefined();
      expect(taken.body.id).not.toBe(done.body.id);
      expect(await count(body.title)).toBe(2);
    });

    it('a replay whose record was deleted since is 410 rest_created_record_gone', async () => {
      const first = await post('tags', 'key-gone', { name: 'Soon gone' });
      await db()('idempotency_keys').where({ key: 'key-gone' }).update({ body: null });
      await http(service)
        .delete(`${NS}/tags/${first.body.id}`)
        .auth(...service.as('administrator'))
        .expect(200);
      const again = await post('tags', 'key-gone', { name: 'Soon gone' });
      expect(again.status).toBe(410);
      expect(again.body).toMatchObject({ code: 'rest_created_record_gone', data: { status: 410 } });
      expect(await db()('terms').where({ name: 'Soon gone' }).first()).toBeUndefined();
    });

    if (engine === 'postgres') {
      it('a create still running when its claim is taken over rolls back (409): one event, made by the request that took over', async () => {
        // a second connection holds the advisory lock the event create takes for its slug, so the first request
        // waits inside its transaction, after claiming the key, until the clock has run past the takeover time
        const body = event();
        const lock = await service.database.db.client.acquireConnection();
        const slugLock = `event-slug:${body.title.toLowerCase().replace(/ /g, '-')}`;
        // polled for up to a minute: on a loaded machine a request can take seconds to reach the lock
        const waiting = async (n: number) => {
          for (let i = 0; i < 2400; i++) {
            const { rows } = await service.database.db.raw(
              `select count(*)::int as n from pg_locks where locktype = 'advisory'
              and not granted and ((classid::bigint << 32) | objid::bigint) = hashtextextended(?, 0)`,
              [slugLock],
            );
            if (rows[0].n >= n) return;
            await new Promise((resolve) => setTimeout(resolve, 25));
          }
          throw new Error(`fewer than ${n} requests waiting`);
        };
        try {
          await lock.query({ text: 'select pg_advisory_lock(hashtextextended($1, 0))', values: [slugLock] });
          const clock = manualClock(TEST_NOW);
          setClock(clock);
          const slow = post('events', 'key-taken-over', body).then((r) => r);
          await waiting(1);
          clock.advance(2 * service.config.requestTimeoutMs + 1000);
          const retry = post('events', 'key-taken-over', body).then((r) => r);
          await waiting(2);
          await lock.query({ text: 'select pg_advisory_unlock(hashtextextended($1, 0))', values: [slugLock] });
          const [first, second] = await Promise.all([slow, retry]);
          expect(first.status).toBe(409);
          expect(first.body.code).toBe('rest_idempotency_key_in_progress');
          expect(second.status).toBe(201);
          expect(await count(body.title)).toBe(1);
          const again = await post('events', 'key-taken-over', body);
          expect(again.headers['idempotent-replayed']).toBe('true');
          expect(again.body.id).toBe(second.body.id);
        } finally {
          await lock.query('select pg_advisory_unlock_all()');
          await service.database.db.client.releaseConnection(lock);
        }
      });
    }
  });

  it('refuses a malformed key', async () => {
    const res = await post('tags', 'has space', { name: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.data.params).toHaveProperty(['Idempotency-Key']);
  });
});
