/**
 * The change stream's guarantees under random histories, on every engine: random writes to events (creates,
 * updates, trashes, drafts, publications, through the API) interleaved with disconnects, resumes with
 * `Last-Event-ID`, moves to another node and node restarts (a node closed, a new one started on the same database).
 * What the client received, all streams together, is exactly the change feed after its start cursor as the same
 * caller reads it: in order, nothing lost, nothing repeated. Then, case by case per role, a stream's items are the
 * feed's items for that caller.
 */
import fc from 'fast-check';
import { ENGINES } from '../support/engines';
import { startOtherNode, type OtherNode } from '../support/nodes';
import { http, NS, startService, type TestService } from '../support/app';
import { openStream, type SseEvent, type SseStream } from '../support/sse';
import { createLogger } from '../../src/logger';
import { closeChangeStreams } from '../../src/integrations/stream';
import type { Role } from '../../src/users/roles';

const TIMEOUT = 120_000;
const ENV = { STREAM_HEARTBEAT_MS: '1000', STREAM_POLL_MS: '20', STREAM_MAX_PER_CALLER: '10' };

interface Item {
  cursor: string;
  resource: string;
  id: number;
  action: string;
  record?: unknown;
}

type Node = OtherNode;

type Step =
  | { kind: 'create'; draft: boolean }
  | { kind: 'retitle' | 'trash' | 'draft' | 'publish'; event: number }
  | { kind: 'disconnect' | 'reconnect' }
  | { kind: 'switch' | 'restart'; node: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('create' as const), draft: fc.boolean() }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constantFrom('retitle' as const, 'trash' as const, 'draft' as const, 'publish' as const),
      event: fc.nat({ max: 15 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('disconnect' as const, 'reconnect' as const) }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constantFrom('switch' as const, 'restart' as const), node: fc.nat({ max: 1 }) }),
  },
) as fc.Arbitrary<Step>;

const CALLERS: Array<Role | undefined> = [undefined, 'author', 'editor', 'administrator'];

describe.each(ENGINES)('the change stream under random histories, on %s', (engine) => {
  let service: TestService;
  const nodes: Node[] = [];
  const open = new Set<SseStream>();

  beforeAll(async () => {
    // SQLite on a file, so that other nodes are other connections to the same database
    service = await startService(engine, ENV, createLogger('silent'), { lockWaitMs: 10_000 });
    nodes.push(await startOtherNode(service), await startOtherNode(service));
  }, TIMEOUT);
  afterAll(async () => {
    for (const s of open) s.close();
    await closeChangeStreams(service.database.db);
    for (const node of nodes) await node.close();
    await service.close();
  });

  const mainUrl = () => `http://127.0.0.1:${(service.server.address() as { port: number }).port}${NS}`;
  const authHeader = (role?: Role): Record<string, string> =>
    role
      ? { Authorization: `Basic ${Buffer.from(service.as(role).join(':')).toString('base64')}` }
      : ({} as Record<string, string>);
  const cursorNow = async () => (await http(service).get(`${NS}/changes`)).body.next_cursor as string;
  const feedAfter = async (cursor: string, role?: Role) => {
    const items: Item[] = [];
    let next = cursor;
    for (;;) {
      const req = http(service).get(`${NS}/changes?cursor=${encodeURIComponent(next)}&limit=500`);
      const res = await (role ? req.auth(...service.as(role)) : req);
      expect(res.status).toBe(200);
      items.push(...res.body.changes);
      if (!res.body.has_more) return items;
      next = res.body.next_cursor;
    }
  };
  const send = async (method: 'post' | 'delete', path: string, body: object = {}, role: Role = 'editor') => {
    const res = await http(service)
      [method](`${NS}/${path}`)
      .auth(...service.as(role))
      .send(body);
    // writes to a trashed event may be refused; the feed then has nothing for them, which is the point
    if (res.status >= 500) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res;
  };

  /** One client: its streams, one at a time, each on some node; what it received, with the host normalised. */
  function client(role: Role | undefined, start: string) {
    const received: Item[] = [];
    let current: { stream: SseStream; node: number; host: string; taken: number } | undefined;
    let node = 0;
    const lastId = () => (received.length ? received[received.length - 1].cursor : start);
    const collect = () => {
      if (!current) return;
      const { stream, host, taken } = current;
      for (const e of stream.events.slice(taken) as SseEvent[]) {
        expect(e.event).toBe('change');
        const item = JSON.parse(e.data.replaceAll(host, new URL(mainUrl()).host)) as Item;
        expect(e.id).toBe(item.cursor);
        received.push(item);
      }
      current.taken = stream.events.length;
    };
    return {
      received,
      node: () => node,
      connected: () => current !== undefined,
      async connect(to = node) {
        await this.disconnect();
        node = to;
        const url = nodes[to].url;
        const stream = await openStream(`${url}/changes/stream`, { ...authHeader(role), 'Last-Event-ID': lastId() });
        expect(stream.status).toBe(200);
        open.add(stream);
        current = { stream, node: to, host: new URL(url).host, taken: 0 };
      },
      async disconnect() {
        if (!current) return;
        collect(); // what arrived before the client went away
        current.stream.close();
        await current.stream.ended;
        open.delete(current.stream);
        current = undefined;
      },
      /** The node went away: the stream ended; what arrived before is received. */
      async dropped() {
        if (!current) return;
        await current.stream.ended;
        collect();
        open.delete(current.stream);
        current = undefined;
      },
      /** Waits until `count` items arrived in all (the live stream catching up). */
      async until(count: number, timeoutMs = 10_000) {
        const deadline = performance.now() + timeoutMs;
        for (;;) {
          collect();
          if (received.length >= count || performance.now() > deadline) return;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      },
    };
  }

  it(
    'delivers exactly the feed after the start cursor across disconnects, resumes, other nodes and restarts',
    async () => {
      const events: number[] = [];
      const create = async (draft: boolean) => {
        const day = String((events.length % 27) + 1).padStart(2, '0');
        const res = await send('post', 'events', {
          title: `Stream property ${events.length}`,
          status: draft ? 'draft' : 'publish',
          start_date: `2031-05-${day} 19:00`,
          end_date: `2031-05-${day} 21:00`,
        });
        expect(res.status).toBe(201);
        events.push(res.body.id);
      };
      await create(false);
      let runs = 0;
      const seen = { items: 0, resumes: 0, restartsUnderStream: 0, switches: 0 };
      await fc.assert(
        fc.asyncProperty(
          fc.nat({ max: CALLERS.length - 1 }),
          fc.array(step, { minLength: 8, maxLength: 20 }),
          async (caller, steps) => {
            runs++;
            const role = CALLERS[caller];
            const start = await cursorNow();
            const c = client(role, start);
            await c.connect(0);
            try {
              for (const s of steps) {
                const event = 'event' in s ? events[s.event % events.length] : 0;
                switch (s.kind) {
                  case 'create':
                    await create(s.draft);
                    break;
                  case 'retitle':
                    await send('post', `events/${event}`, { title: `Retitled ${event} ${runs}` });
                    break;
                  case 'trash':
                    await send('delete', `events/${event}`);
                    break;
                  case 'draft':
                  case 'publish':
                    await send('post', `events/${event}`, { status: s.kind });
                    break;
                  case 'disconnect':
                    await c.disconnect();
                    break;
                  case 'reconnect':
                    if (c.received.length) seen.resumes++;
                    await c.connect();
                    break;
                  case 'switch':
                    if (s.node !== c.node()) seen.switches++;
                    await c.connect(s.node);
                    break;
                  case 'restart': {
                    const wasHere = c.connected() && c.node() === s.node;
                    const old = nodes[s.node];
                    await old.close(); // ends its streams first, as SIGTERM does
                    if (wasHere) {
                      seen.restartsUnderStream++;
                      await c.dropped();
                    }
                    nodes[s.node] = await startOtherNode(service);
                    if (wasHere) await c.connect(s.node);
                    break;
                  }
                }
              }
              if (!c.connected()) await c.connect();
              const feed = await feedAfter(start, role);
              await c.until(feed.length);
              await new Promise((resolve) => setTimeout(resolve, 100)); // anything more would be a repeat
              await c.until(Number.POSITIVE_INFINITY, 0);
              // the same changes, in the same order, once each
              const key = (i: Item) => `${i.cursor} ${i.resource} ${i.id}`;
              expect(c.received.map(key)).toEqual(feed.map(key));
              // an item carries its record's state when read: equal to the feed's now for each record's last change
              const last = new Map(feed.map((i, at) => [`${i.resource} ${i.id}`, at]));
              for (const [, at] of last) expect(c.received[at]).toEqual(feed[at]);
              seen.items += feed.length;
            } finally {
              await c.disconnect();
            }
          },
        ),
        { numRuns: 6, seed: 139, endOnFailure: true },
      );
      expect(runs).toBe(6);
      // the histories did what they are for
      console.log(`change stream property on ${engine}: ${JSON.stringify(seen)}`);
      for (const count of Object.values(seen)) expect(count).toBeGreaterThan(0);
    },
    TIMEOUT,
  );

  it(
    'streams to each role exactly the items the feed shows it',
    async () => {
      const roles: Array<Role | undefined> = [undefined, 'subscriber', 'contributor', 'author', 'editor'];
      const start = await cursorNow();
      const streams: SseStream[] = [];
      for (const role of roles) {
        const s = await openStream(`${mainUrl()}/changes/stream`, authHeader(role));
        expect(s.status).toBe(200);
        open.add(s);
        streams.push(s);
      }
      const at = (day: number) => ({ start_date: `2031-06-${day} 19:00`, end_date: `2031-06-${day} 21:00` });
      const created = async (res: { status: number; body: { id: number } }) => {
        expect(res.status).toBe(201);
        return res.body.id;
      };
      await created(await send('post', 'events', { title: 'Role public', status: 'publish', ...at(1) }));
      await created(await send('post', 'events', { title: 'Role draft', status: 'draft', ...at(2) }, 'author'));
      await created(await send('post', 'events', { title: 'Role private', status: 'private', ...at(3) }));
      const secret = { title: 'Role protected', status: 'publish', password: 'sesame', ...at(4) };
      await created(await send('post', 'events', secret));
      for (const [i, role] of roles.entries()) {
        const feed = await feedAfter(start, role);
        expect(feed).toHaveLength(4);
        const got: Item[] = [];
        for (let k = 0; k < feed.length; k++) {
          const e = await streams[i].next(10_000);
          expect(e.id).toBe(JSON.parse(e.data).cursor);
          got.push(JSON.parse(e.data));
        }
        expect({ role, items: got }).toEqual({ role, items: feed });
        await expect(streams[i].next(200)).rejects.toThrow(/timed out/);
        // what a caller may not read is no record: the author's draft, to anyone but its author and an editor
        const draft = JSON.stringify(got[1]);
        if (role === 'author' || role === 'editor') expect(draft).toContain('Role draft');
        else expect(draft).not.toContain('Role draft');
        streams[i].close();
        open.delete(streams[i]);
      }
    },
    TIMEOUT,
  );
});
