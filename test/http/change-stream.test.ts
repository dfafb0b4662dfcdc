/**
 * The change stream (`GET /changes/stream`, Server-Sent Events) on every engine: events carry the change feed's
 * items with their cursors as ids; a resumed stream loses and repeats nothing; a caller sees what the feed shows it;
 * limits answer 429; quiet streams get heartbeats (an injected 100 ms interval, not the wall clock); a write on
 * another node (a second app on the same database) reaches a stream, and the wake-up latency is measured.
 */
import net from 'node:net';
import { once } from 'node:events';
import { ENGINES } from '../support/engines';
import { startOtherNode, type OtherNode } from '../support/nodes';
import { http, NS, startService, type TestService } from '../support/app';
import { openStream, type SseStream } from '../support/sse';
import { createLogger } from '../../src/logger';
import { closeChangeStreams } from '../../src/integrations/stream';
import type { Role } from '../../src/users/roles';

const TIMEOUT = 120_000;
const ENV = {
  STREAM_HEARTBEAT_MS: '100',
  STREAM_MAX_PER_CALLER: '3',
  STREAM_POLL_MS: '20',
  METRICS_TOKEN: 'stream-metrics',
};

type Node = OtherNode;

describe.each(ENGINES)('change stream on %s', (engine) => {
  let service: TestService;
  let other: Node; // a second node on the same database, allowed one stream
  const open: SseStream[] = [];

  beforeAll(async () => {
    // SQLite on a file, so that the second node is another connection to the same database
    service = await startService(engine, ENV, createLogger('silent'), { lockWaitMs: 10_000 });
    other = await startOtherNode(service, { ...service.config, streamMaxOpen: 1, streamMaxBufferBytes: 65536 });
  }, TIMEOUT);
  afterAll(async () => {
    for (const stream of open) stream.close();
    await closeChangeStreams(service.database.db);
    await closeChangeStreams(other.db);
    await other.close();
    await service.close();
  });

  const base = () => `http://127.0.0.1:${(service.server.address() as { port: number }).port}${NS}`;
  const credentials = (role: Role) =>
    `Basic ${Buffer.from(`${service.users[role].login}:${service.users[role].password}`).toString('base64')}`;
  const stream = async (query = '', role?: Role, headers: Record<string, string> = {}, root = base()) => {
    const auth: Record<string, string> = role ? { Authorization: credentials(role) } : {};
    const s = await openStream(`${root}/changes/stream${query}`, { ...auth, ...headers });
    open.push(s);
    return s;
  };
  const write = (method: 'post' | 'patch' | 'delete', url: string, body?: object) =>
    http(service)
      [method](`${NS}${url}`)
      .auth(...service.as('administrator'))
      .send(body);
  const tag = async (name: string) => {
    const res = await write('post', '/tags', { name });
    expect(res.status).toBe(201);
    return res.body.id as number;
  };
  const feedAfter = async (cursor: string, role?: Role) => {
    const req = http(service).get(`${NS}/changes?cursor=${encodeURIComponent(cursor)}&limit=500`);
    const res = await (role ? req.auth(...service.as(role)) : req);
    expect(res.status).toBe(200);
    return res.body.changes as Array<{ cursor: string }>;
  };
  const cursorNow = async () => (await http(service).get(`${NS}/changes`)).body.next_cursor as string;

  it(
    'sends each change as the feed shows it, its cursor as id; resumes after Last-Event-ID or after= exactly',
    async () => {
      const start = await cursorNow();
      const live = await stream('', 'administrator');
      expect(live.status).toBe(200);
      expect(live.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const ids = [await tag('Stream one'), await tag('Stream two'), await tag('Stream three')];
      const got = [await live.next(), await live.next(), await live.next()];
      expect(got.map((e) => e.event)).toEqual(['change', 'change', 'change']);
      const feed = await feedAfter(start, 'administrator');
      expect(got.map((e) => JSON.parse(e.data))).toEqual(feed);
      expect(got.map((e) => e.id)).toEqual(feed.map((c) => c.cursor));
      expect(feed.map((c) => (c as unknown as { id: number }).id)).toEqual(ids);
      live.close();

      // two more while disconnected; the client resumes after the second event it received
      await tag('Stream four');
      await tag('Stream five');
      const resumed = await stream('', 'administrator', { 'Last-Event-ID': got[1].id as string });
      const again = [await resumed.next(), await resumed.next(), await resumed.next()];
      const all = await feedAfter(got[1].id as string, 'administrator');
      expect(again.map((e) => e.id)).toEqual(all.map((c) => c.cursor));
      expect(again.map((e) => JSON.parse(e.data).id)).toEqual([ids[2], ...all.slice(1).map((c: any) => c.id)]);
      await expect(resumed.next(300)).rejects.toThrow(/timed out/); // nothing repeated
      resumed.close();
      // the same on another node: the feed in the database is the truth, not a node's memory
      const elsewhere = await stream('', 'administrator', { 'Last-Event-ID': got[1].id as string }, other.url);
      const there3 = [await elsewhere.next(), await elsewhere.next(), await elsewhere.next()];
      expect(there3.map((e) => e.id)).toEqual(again.map((e) => e.id));
      // the same items, but for the URLs in records, which name the node the request reached
      const host = (url: string) => new URL(url).host;
      const here3 = again.map((e) => e.data.replaceAll(host(base()), host(other.url)));
      expect(there3.map((e) => e.data)).toEqual(here3);
      elsewhere.close();
      await elsewhere.ended;

      // `after=` does the same; Last-Event-ID wins over it
      const fromQuery = await stream(`?after=${encodeURIComponent(got[2].id as string)}`, 'administrator');
      expect(JSON.parse((await fromQuery.next()).data).record.name).toBe('Stream four');
      fromQuery.close();
      const both = await stream(`?after=${encodeURIComponent(got[0].id as string)}`, 'administrator', {
        'Last-Event-ID': got[2].id as string,
      });
      expect(JSON.parse((await both.next()).data).record.name).toBe('Stream four');
      both.close();
    },
    TIMEOUT,
  );

  it(
    'answers a bad cursor 400 before streaming, and HEAD without holding a stream open',
    async () => {
      const head = await http(service).head(`${NS}/changes/stream`);
      expect(head.status).toBe(200);
      expect(head.headers['content-type']).toMatch(/^text\/event-stream/);
      const bad = await stream('', 'administrator', { 'Last-Event-ID': 'not-a-cursor' });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ code: 'rest_invalid_param', data: { status: 400 } });
      const badQuery = await stream('?after=nope');
      expect(badQuery.status).toBe(400);
    },
    TIMEOUT,
  );

  it(
    'shows a caller only what the feed shows it: a draft is no record to an anonymous caller',
    async () => {
      const start = await cursorNow();
      const anonymous = await stream();
      const editor = await stream('', 'editor');
      const draft = await write('post', '/events', {
        title: 'Stream secret',
        status: 'draft',
        start_date: '2027-08-01 10:00:00',
        end_date: '2027-08-01 11:00:00',
      });
      expect(draft.status).toBe(201);
      const seenByEditor = JSON.parse((await editor.next()).data);
      expect(seenByEditor).toMatchObject({ id: draft.body.id, action: 'created', record: { title: 'Stream secret' } });
      const seenByAnonymous = JSON.parse((await anonymous.next()).data);
      expect(seenByAnonymous).toEqual((await feedAfter(start))[0]);
      expect(seenByAnonymous).not.toHaveProperty('record');
      expect(JSON.stringify(anonymous.events)).not.toContain('Stream secret');
      anonymous.close();
      editor.close();
    },
    TIMEOUT,
  );

  it(
    'sends heartbeat comments to a quiet stream, and nothing for parameters the spec lacks',
    async () => {
      // better-sse's own parameters (padding comments) are not the spec's: they do nothing
      const quiet = await stream('?padding=1&evs_preamble=1', 'author');
      await quiet.comment('ping');
      expect(quiet.comments.every((c) => c === 'ping')).toBe(true);
      quiet.close();
    },
    TIMEOUT,
  );

  it(
    'refuses streams past the per-caller and per-node limits with 429 and Retry-After',
    async () => {
      const three = [await stream('', 'subscriber'), await stream('', 'subscriber'), await stream('', 'subscriber')];
      for (const s of three) expect(s.status).toBe(200);
      const fourth = await stream('', 'subscriber');
      expect(fourth.status).toBe(429);
      expect(fourth.headers.get('retry-after')).toBe('5');
      expect(fourth.body).toMatchObject({
        code: 'rest_too_many_requests',
        message: expect.stringContaining('change streams'),
        data: { status: 429, retry_after: 5 },
      });
      three[0].close();
      await three[0].ended;
      await waitUntil(async () => (await stream('', 'subscriber')).status === 200);

      const onOther = await stream('', 'contributor', {}, other.url);
      expect(onOther.status).toBe(200);
      const refused = await stream('', 'author', {}, other.url);
      expect(refused.status).toBe(429);
      for (const s of [...three, onOther]) s.close();
    },
    TIMEOUT,
  );

  it(
    'wakes streams on this node and on another node; measures the latency',
    async () => {
      const here = await stream('', 'administrator');
      await waitUntil(async () => {
        const s = await stream('', 'editor', {}, other.url);
        if (s.status === 200) {
          there = s;
          return true;
        }
        return false;
      });
      const local: number[] = [];
      const remote: number[] = [];
      for (let i = 0; i < 20; i++) {
        const id = await tag(`Latency ${i}`);
        const acknowledged = performance.now();
        const [a, b] = await Promise.all([here.next(), (there as SseStream).next()]);
        expect([JSON.parse(a.data).id, JSON.parse(b.data).id]).toEqual([id, id]);
        local.push(a.at - acknowledged);
        remote.push(b.at - acknowledged);
      }
      // and a write on the other node reaches a stream here
      const fromOther = await fetch(`${other.url}/tags`, {
        method: 'POST',
        headers: { Authorization: credentials('administrator'), 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Written on the other node' }),
      });
      expect(fromOther.status).toBe(201);
      expect(JSON.parse((await here.next()).data).record.name).toBe('Written on the other node');
      const stats = (xs: number[]) => {
        const sorted = [...xs].sort((p, q) => p - q);
        const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
        return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] };
      };
      const figures = { engine, sameNode: stats(local), otherNode: stats(remote) };
      console.log(`change stream wake-up after the write's answer, ms: ${JSON.stringify(figures)}`);
      // generous bounds: a loaded test machine, several suites at once (the targets are 100 ms and 1 s)
      expect(figures.sameNode.p99).toBeLessThan(1000);
      expect(figures.otherNode.p99).toBeLessThan(3000);
      here.close();
      (there as SseStream).close();
    },
    TIMEOUT,
  );
  let there: SseStream | undefined;

  it(
    'drops a client that stops reading once its unread bytes pass the bound',
    async () => {
      const { port } = other.server.address() as { port: number };
      const socket = net.connect(port, '127.0.0.1');
      await once(socket, 'connect');
      socket.write(
        `GET ${NS}/changes/stream HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n` +
          `Authorization: ${credentials('administrator')}\r\n\r\n`,
      );
      await once(socket, 'data');
      socket.pause(); // reads nothing more: the kernel's buffers fill, then the server's
      socket.on('error', () => undefined);
      const big = await tag('Slow reader');
      const description = 'A long description. '.repeat(10_000); // ~200 kB in every event
      let writes = 0;
      const metric = async () => {
        const res = await fetch(`http://127.0.0.1:${port}/metrics`, {
          headers: { Authorization: 'Bearer stream-metrics' },
        });
        return /^change_stream_dropped_total (\d+)/m.exec(await res.text())?.[1];
      };
      while ((await metric()) !== '1' && writes < 200) {
        expect((await write('patch', `/tags/${big}`, { description: `${writes} ${description}` })).status).toBe(200);
        writes++;
      }
      expect(await metric()).toBe('1');
      socket.destroy();
      console.log(`slow reader dropped after ${writes} writes of ~200 kB`);
    },
    TIMEOUT,
  );

  it(
    'shows open streams and events sent in /metrics',
    async () => {
      const s = await stream('', 'administrator');
      await tag('Metered');
      await s.next();
      const res = await http(service).get('/metrics').set('Authorization', 'Bearer stream-metrics');
      expect(res.status).toBe(200);
      expect(res.text).toMatch(/^change_streams_open [1-9]/m);
      expect(res.text).toMatch(/^change_stream_events_total [1-9]/m);
      s.close();
    },
    TIMEOUT,
  );
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
