/**
 * Webhooks survive SIGKILL, on every engine: the server runs as a child process with a subscription to
 * every change and a slow local receiver, takes concurrent writes, and is killed with SIGKILL while the outbox is
 * still full; after a restart every committed change is in the feed and delivered (at least once, signed), and
 * nothing was delivered that the feed does not have. On PostgreSQL two nodes dispatch one outbox at once: no
 * message goes out twice in one attempt.
 */
import knex from 'knex';
import { Webhook } from 'standardwebhooks';
import { ENGINES, freshDatabaseUrl, type Engine } from '../support/engines';
import { basic, receiver, until, type Receiver, type Reception } from '../support/kit';
import { exited, freePort, killAll, mapLimit, request, startServer } from './support';

const ADMIN = { ADMIN_LOGIN: 'hooker', ADMIN_PASSWORD: 'a webhook admin password' };
const AUTH = basic(ADMIN.ADMIN_LOGIN, ADMIN.ADMIN_PASSWORD);
const NAMESPACE = '/calendar/events/v1';
const ENV = {
  ...ADMIN,
  WEBHOOK_ALLOW_PRIVATE: '1',
  WEBHOOK_POLL_MS: '50',
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1,1,1',
};
const TIMEOUT = 240_000;

/** The whole feed after `cursor`, as `resource:id:action` per change. */
async function wholeFeed(base: string, cursor: string): Promise<string[]> {
  const all: string[] = [];
  for (let next = cursor, more = true; more; ) {
    const page = await request(base, 'GET', `/changes?cursor=${encodeURIComponent(next)}&limit=500`, { auth: AUTH });
    expect(page.status).toBe(200);
    all.push(
      ...page.body.changes.map(
        (c: { resource: string; id: number; action: string }) => `${c.resource}:${c.id}:${c.action}`,
      ),
    );
    next = page.body.next_cursor;
    more = page.body.has_more;
  }
  return all;
}

const typeOf = (m: Reception) => {
  const body = JSON.parse(m.body) as { type: string; data: { id: number } };
  const [resource, action] = body.type.split('.');
  return `${resource}:${body.data.id}:${action}`;
};

describe.each(ENGINES)('webhooks across SIGKILL on %s', (engine: Engine) => {
  let database: { url: string; drop(): Promise<void> };
  let hook: Receiver;
  beforeAll(async () => {
    database = await freshDatabaseUrl(engine);
    hook = await receiver({ delayMs: 100, keepAliveTimeoutMs: 100 });
  });
  afterAll(async () => {
    await killAll();
    await hook.close();
    await database.drop();
  });

  it(
    'delivers every committed change after a SIGKILL under concurrent writes, and the feed has them all',
    async () => {
      let port = await freePort();
      let base = `http://127.0.0.1:${port}${NAMESPACE}`;
      let server = await startServer(database.url, port, ENV);
      const subscription = await request(base, 'POST', '/webhooks', {
        auth: AUTH,
        body: { url: hook.url, events: ['*'] },
      });
      expect(subscription.status).toBe(201);
      const secret = subscription.body.secret as string;
      const start = (await request(base, 'GET', '/changes', { auth: AUTH })).body.next_cursor as string;

      const acked: string[] = [];
      let stop = false;
      const loop = async (l: number) => {
        for (let i = 0; !stop && i < 300; i++) {
          const kind = i % 3 === 0 ? 'tags' : 'events';
          const body =
            kind === 'tags'
              ? { name: `Hooked ${l}-${i}` }
              : {
                  title: `Hooked ${l}-${i}`,
                  status: 'publish',
                  start_date: '2031-05-01 10:00:00',
                  end_date: '2031-05-01 11:00:00',
                };
          const answer = await request(base, 'POST', `/${kind}`, { auth: AUTH, body, timeoutMs: 10_000 });
          if (answer.status === 201) acked.push(`${kind === 'tags' ? 'tag' : 'event'}:${answer.body.id}:created`);
        }
      };
      const loops = Array.from({ length: 6 }, (_, l) => loop(l));
      await until(() => acked.length >= 60 && hook.received.length >= 10, 60_000, 200);
      server.kill('SIGKILL');
      stop = true;
      await exited(server);
      await Promise.all(loops);
      const receivedAtKill = new Set(hook.received.map((m) => m.id)).size;

      port = await freePort();
      base = `http://127.0.0.1:${port}${NAMESPACE}`;
      server = await startServer(database.url, port, ENV);
      const feed = await wholeFeed(base, start);
      const delivered = () => new Set(hook.received.map(typeOf));
      await until(() => feed.every((change) => delivered().has(change)), 120_000, 200);
      console.log(
        `webhooks on ${engine}: ${acked.length} acknowledged writes, ${feed.length} changes in the feed, ` +
          `${receivedAtKill} messages delivered before the SIGKILL, ` +
          `${new Set(hook.received.map((m) => m.id)).size} after the restart ` +
          `(${hook.received.length} receptions)`,
      );

      expect(acked.filter((change) => !feed.includes(change))).toEqual([]); // the feed is complete
      expect(feed.filter((change) => !delivered().has(change))).toEqual([]); // every committed change delivered
      expect([...delivered()].filter((change) => !feed.includes(change))).toEqual([]); // and nothing else
      expect(new Set(hook.received.map((m) => m.id)).size).toBe(feed.length); // one message per change
      expect(feed.length).toBeGreaterThan(receivedAtKill); // the kill left messages in the outbox
      const verifier = new Webhook(secret);
      for (const m of hook.received) {
        const spy = jest.spyOn(Date, 'now').mockReturnValue(Number(m.headers['webhook-timestamp']) * 1000);
        try {
          verifier.verify(m.body, {
            'webhook-id': m.id,
            'webhook-timestamp': String(m.headers['webhook-timestamp']),
            'webhook-signature': String(m.headers['webhook-signature']),
          });
        } finally {
          spy.mockRestore();
        }
      }
    },
    TIMEOUT,
  );
});

if (ENGINES.includes('postgres')) {
  describe('two nodes dispatching one PostgreSQL outbox', () => {
    let database: { url: string; drop(): Promise<void> };
    let hook: Receiver;
    beforeAll(async () => {
      database = await freshDatabaseUrl('postgres');
      hook = await receiver({ delayMs: 20, failFirst: true, keepAliveTimeoutMs: 100 });
    });
    afterAll(async () => {
      await killAll();
      await hook.close();
      await database.drop();
    });

    it(
      'sends each message once per attempt: a first failure, then exactly one retry',
      async () => {
        const ports = [await freePort(), await freePort()];
        await Promise.all(ports.map((port) => startServer(database.url, port, ENV)));
        const bases = ports.map((port) => `http://127.0.0.1:${port}${NAMESPACE}`);
        const subscription = await request(bases[0], 'POST', '/webhooks', {
          auth: AUTH,
          body: { url: hook.url, events: ['*'] },
        });
        expect(subscription.status).toBe(201);
        const answers = await mapLimit(
          Array.from({ length: 120 }, (_, i) => i),
          8,
          (i) => request(bases[i % 2], 'POST', '/tags', { auth: AUTH, body: { name: `Two nodes ${i}` } }),
        );
        expect(answers.filter((a) => a.status !== 201)).toEqual([]);
        const sql = knex({ client: 'pg', connection: database.url, pool: { min: 0, max: 1 } });
        try {
          const settled = await until(
            async () => {
              const [{ n }] = await sql('webhook_deliveries').whereNot({ state: 'succeeded' }).count({ n: '*' });
              return Number(n) === 0;
            },
            120_000,
            200,
          );
          expect(settled).toBe(true);
          const perId = new Map<string, number>();
          for (const m of hook.received) perId.set(m.id, (perId.get(m.id) ?? 0) + 1);
          expect(perId.size).toBe(120);
          expect([...perId.values()].filter((n) => n !== 2)).toEqual([]); // attempt 1 (500) and attempt 2 (200), never twice
          const attempts = await sql('webhook_attempts')
            .select('delivery_id', 'attempt')
            .orderBy(['delivery_id', 'attempt']);
          expect(attempts).toHaveLength(240);
          const { rows } = await sql.raw(
            'select count(*) as n from (select delivery_id, attempt from webhook_attempts group by 1, 2 having count(*) > 1) d',
          );
          expect(Number(rows[0].n)).toBe(0);
        } finally {
          await sql.destroy();
        }
      },
      TIMEOUT,
    );
  });
}
