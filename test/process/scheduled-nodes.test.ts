/**
 * Two nodes on one database publish each scheduled post once: two apps, each with its own connection pool and
 * publishing job, on one PostgreSQL schema (several API nodes) or one SQLite file (the server beside the CLI). Posts
 * scheduled through either node come due; both jobs run at once, twice; every post is published once, with one
 * change-feed entry, one webhook delivery and one audit entry, and both nodes answer it to anonymous callers.
 */
import type { Server } from 'node:http';
import { DateTime } from 'luxon';
import request from 'supertest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createDb } from '../../src/db/knex';
import { migrate } from '../../src/db/migrate';
import type { Db } from '../../src/db/types';
import { clockStartingAt, manualClock, now, setClock } from '../../src/domain/clock';
import type { AppContext } from '../../src/http/context';
import { createHttpServer } from '../../src/http/request-classes';
import { loadSpec } from '../../src/http/spec';
import { createThrottle } from '../../src/http/throttle';
import { startDispatcher } from '../../src/integrations/webhooks/dispatcher';
import { createLogger } from '../../src/logger';
import { startPublisher, type Publisher } from '../../src/publishing/job';
import { createUser } from '../../src/users/repository';
import { NS, TEST_NOW } from '../support/app';
import { ENGINES, freshDatabase, freshDatabaseUrl, type Engine } from '../support/engines';
import { receiver, utcText } from '../support/kit';

const PASSWORD = 'a password both nodes know';
const SCHEDULED = 12;
const TIMEOUT = 180_000;

/** Two handles on one fresh database, as two processes have. */
async function sharedDatabase(engine: Engine): Promise<{ dbs: [Db, Db]; schema?: string; drop(): Promise<void> }> {
  if (engine === 'sqlite') {
    const file = await freshDatabaseUrl('sqlite');
    const dbs: [Db, Db] = [createDb(file.url), createDb(file.url)];
    return {
      dbs,
      async drop() {
        await Promise.all(dbs.map((db) => db.destroy()));
        await file.drop();
      },
    };
  }
  const database = await freshDatabase('postgres');
  const other = createDb(database.url, { schema: database.schema });
  return {
    dbs: [database.db, other],
    schema: database.schema,
    async drop() {
      await other.destroy();
      await database.drop();
    },
  };
}

interface Node {
  context: AppContext;
  server: Server;
  publisher: Publisher;
}

async function startNode(db: Db, schema: string | undefined): Promise<Node> {
  const config = { ...loadConfig({ SITE_TIMEZONE: 'UTC', WEBHOOK_ALLOW_PRIVATE: '1' }) };
  const throttle = createThrottle(db, config, schema);
  const app = createApp({ config, db, spec: loadSpec(), throttle }, { logger: createLogger('silent') });
  const server = await new Promise<Server>((resolve) => {
    const s = createHttpServer(app).listen(0, '127.0.0.1', () => resolve(s));
  });
  const publisher = startPublisher(db, createLogger('silent'), { loop: false });
  return { context: app.locals.context as AppContext, server, publisher };
}

describe.each(ENGINES)('scheduled posts on two nodes of one %s database', (engine) => {
  let database: Awaited<ReturnType<typeof sharedDatabase>>;
  let nodes: Node[];
  const clock = manualClock(TEST_NOW);
  beforeAll(async () => {
    setClock(clock);
    database = await sharedDatabase(engine);
    await migrate(database.dbs[0]);
    await createUser(database.dbs[0], 'chief', 'administrator', PASSWORD);
    nodes = await Promise.all(database.dbs.map((db) => startNode(db, database.schema)));
  }, TIMEOUT);
  afterAll(async () => {
    for (const node of nodes ?? []) {
      await node.publisher.stop();
      await new Promise((resolve) => node.server.close(resolve));
    }
    await database?.drop();
    setClock(clockStartingAt(TEST_NOW));
  });

  const call = (node: Node, method: 'get' | 'post', url: string, body?: object) =>
    request(node.server)[method](`${NS}${url}`).auth('chief', PASSWORD).send(body);

  it(
    'publishes each post once, with one change, one delivery and one audit entry, seen by both nodes',
    async () => {
      const hook = await receiver();
      try {
        const [a, b] = nodes;
        await call(a, 'post', '/webhooks', { url: hook.url, events: ['event.updated'] }).expect(201);
        const cursor = (await request(a.server).get(`${NS}/changes`)).body.next_cursor as string;
        const date = utcText(DateTime.fromJSDate(now()).plus({ minutes: 1 }));
        const ids: number[] = [];
        for (let n = 0; n < SCHEDULED; n++) {
          const res = await call(nodes[n % 2], 'post', '/events', {
            title: `Scheduled on node ${n % 2}, number ${n}`,
            status: 'future',
            date_utc: date,
            start_date: '2027-10-01 20:00:00',
            end_date: '2027-10-01 22:00:00',
          });
          expect(res.body.status).toBe('future');
          ids.push(res.body.id);
        }

        clock.advance(60_000);
        const passes = await Promise.all([a, b, a, b].map((node) => node.publisher.run()));
        expect(passes.reduce((sum, n) => sum + n, 0)).toBe(SCHEDULED);

        for (const node of nodes) {
          const list = await request(node.server).get(`${NS}/events?start_date=2027-10-01&end_date=2027-10-02`);
          expect(list.headers['x-wp-total']).toBe(String(SCHEDULED));
          const one = await request(node.server).get(`${NS}/events/${ids[0]}`);
          expect(one.status).toBe(200);
        }
        const changes = (await call(b, 'get', `/changes?cursor=${encodeURIComponent(cursor)}&limit=500`)).body
          .changes as Array<{ id: number; action: string }>;
        const updates = changes.filter((c) => c.action === 'updated').map((c) => c.id);
        expect(updates.sort((x, y) => x - y)).toEqual(ids);

        // both nodes' dispatchers at once: each delivery is claimed by one of them
        const dispatchers = nodes.map((node) => startDispatcher(node.context, createLogger('silent'), { loop: false }));
        while ((await Promise.all(dispatchers.map((d) => d.tick()))).some((sent) => sent > 0));
        const delivered = hook.received.map((m) => JSON.parse(m.body).data.id as number);
        expect(delivered.sort((x, y) => x - y)).toEqual(ids);

        const trail = (await call(a, 'get', '/audit?resource=event&per_page=100')).body.audit as Array<{
          via: string;
        }>;
        expect(trail.filter((entry) => entry.via === 'system')).toHaveLength(SCHEDULED);
      } finally {
        await hook.close();
      }
    },
    TIMEOUT,
  );
});
