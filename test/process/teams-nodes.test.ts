/**
 * Teams across two API nodes on one PostgreSQL database: concurrent updates with the same If-Match through both
 * nodes (exactly one wins), Idempotency-Key repeats through the other node (replay, 422, one create when concurrent),
 * and an application password revoked on one node refused by the other at once although it remembered it.
 *
 * PostgreSQL only: SQLite is single-node (README, "Running several nodes").
 */
import knex, { type Knex } from 'knex';
import { ENGINES, freshDatabaseUrl } from '../support/engines';
import { basic } from '../support/kit';
import { freePort, killAll, request, startServer, type Answer } from './support';

const ADMIN = { ADMIN_LOGIN: 'chief', ADMIN_PASSWORD: 'a shared admin password' };
const AUTH = basic(ADMIN.ADMIN_LOGIN, ADMIN.ADMIN_PASSWORD);
const NAMESPACE = '/calendar/events/v1';
const TIMEOUT = 180_000;
const EVENT = { start_date: '2031-06-01 10:00:00', end_date: '2031-06-01 12:00:00', status: 'publish' };

if (ENGINES.includes('postgres')) {
  describe('teams on two API nodes (PostgreSQL)', () => {
    let database: { url: string; drop(): Promise<void> };
    let sql: Knex;
    let nodes: [string, string];
    const call = (
      i: number,
      method: string,
      route: string,
      body?: unknown,
      headers: Record<string, string> = {},
      auth = AUTH,
    ): Promise<Answer> => request(nodes[i % 2], method, route, { auth, body, headers });

    beforeAll(async () => {
      database = await freshDatabaseUrl('postgres');
      sql = knex({ client: 'pg', connection: database.url, pool: { min: 0, max: 2 } });
      const ports = [await freePort(), await freePort()];
      await Promise.all(ports.map((port) => startServer(database.url, port, ADMIN, { readyTimeoutMs: 120_000 })));
      nodes = [`http://127.0.0.1:${ports[0]}${NAMESPACE}`, `http://127.0.0.1:${ports[1]}${NAMESPACE}`];
    }, TIMEOUT);

    afterAll(async () => {
      await killAll();
      await sql?.destroy();
      await database?.drop();
    }, TIMEOUT);

    it(
      'updates with the same If-Match through both nodes: exactly one wins, every time',
      async () => {
        for (let round = 0; round < 8; round++) {
          const created = await call(round, 'POST', '/events', { ...EVENT, title: `Raced ${round}` });
          expect(created.status).toBe(201);
          const read = await call(round + 1, 'GET', `/events/${created.body.id}`);
          const etag = read.headers.get('etag') as string;
          const answers = await Promise.all(
            [0, 1, 2, 3].map((i) =>
              call(i, 'PATCH', `/events/${created.body.id}`, { title: `Winner ${round}.${i}` }, { 'If-Match': etag }),
            ),
          );
          expect(answers.map((a) => a.status).sort()).toEqual([200, 412, 412, 412]);
          const winner = answers.find((a) => a.status === 200) as Answer;
          expect((await call(round, 'GET', `/events/${created.body.id}`)).body.title).toBe(winner.body.title);
          for (const loser of answers.filter((a) => a.status === 412))
            expect(loser.body.code).toBe('rest_precondition_failed');
        }
      },
      TIMEOUT,
    );

    it(
      'an Idempotency-Key holds across nodes: replay, another body 422, concurrent repeats create once',
      async () => {
        const body = { ...EVENT, title: 'Created once' };
        const first = await call(0, 'POST', '/events', body, { 'Idempotency-Key': 'node-key-1' });
        expect(first.status).toBe(201);
        const replay = await call(1, 'POST', '/events', body, { 'Idempotency-Key': 'node-key-1' });
        expect(replay.status).toBe(201);
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
        expect(replay.body).toEqual(first.body);
        const other = await call(
          1,
          'POST',
          '/events',
          { ...body, title: 'Changed' },
          { 'Idempotency-Key': 'node-key-1' },
        );
        expect(other.status).toBe(422);

        const racing = { ...EVENT, title: 'Raced create' };
        const answers = await Promise.all(
          Array.from({ length: 8 }, (_, i) => call(i, 'POST', '/events', racing, { 'Idempotency-Key': 'node-key-2' })),
        );
        expect(answers.every((a) => a.status === 201 || a.status === 409)).toBe(true);
        expect(answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null)).toHaveLength(
          1,
        );
        const [{ n }] = await sql('posts').where({ title: 'Raced create' }).count({ n: '*' });
        expect(Number(n)).toBe(1);
      },
      TIMEOUT,
    );

    it(
      'an application password revoked on one node is refused by the other at once',
      async () => {
        const made = await call(0, 'POST', '/users/me/application-passwords', { name: 'Two nodes' });
        expect(made.status).toBe(201);
        const auth = basic(ADMIN.ADMIN_LOGIN, made.body.password);
        for (const i of [0, 1])
          expect((await call(i, 'GET', '/users/me/application-passwords', undefined, {}, auth)).status).toBe(200);
        expect((await call(0, 'DELETE', `/users/me/application-passwords/${made.body.uuid}`)).status).toBe(200);
        for (const i of [1, 0])
          expect((await call(i, 'GET', '/users/me/application-passwords', undefined, {}, auth)).status).toBe(401);
      },
      TIMEOUT,
    );
  });
}
