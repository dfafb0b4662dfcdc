/**
 * Nodes of one service: apps on the test service's database, each with a representation cache of its own (as separate
 * processes have) or none, so a test can write on one node and read on another, and compare with a node that renders
 * every answer afresh.
 */
import type { Server } from 'node:http';
import request from 'supertest';
import { createApp } from '../../src/app';
import { createHttpServer } from '../../src/http/request-classes';
import { createLogger } from '../../src/logger';
import { loadSpec } from '../../src/http/spec';
import { createThrottle } from '../../src/http/throttle';
import { http, NS, type TestService } from '../support/app';
import type { Role } from '../../src/users/roles';

export interface Node {
  server: Server;
  close(): Promise<void>;
}

/** The `METRICS_TOKEN` of the cache tests' services, and the header that scrapes their `/metrics`. */
export const SCRAPE_TOKEN = 'cache tests scrape';
export const SCRAPE = ['Authorization', `Bearer ${SCRAPE_TOKEN}`] as const;

/** A write as an editor through the service's own node, never a cached one: the body of its answer. */
export async function writeThrough(service: TestService, method: 'post' | 'delete', path: string, body: object = {}) {
  const res = await http(service)
    [method](`${NS}/${path}`)
    .auth(...service.as('editor'))
    .send(body);
  expect([200, 201]).toContain(res.status);
  return res.body;
}

/** Closes the nodes, then the service they read. */
export async function closeAll(service: TestService, ...nodes: Node[]): Promise<void> {
  for (const node of nodes) await node.close();
  await service.close();
}

/** The node's `/metrics`, as text. */
export async function scrape(node: Node): Promise<string> {
  return (
    await request(node.server)
      .get('/metrics')
      .set(...SCRAPE)
  ).text;
}

/** A counter without labels, in a text `scrape` read. */
export function counterIn(metrics: string, name: string): number {
  return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(metrics)?.[1]);
}

/**
 * A node with the representation cache on or off, and the answer cache likewise unless told otherwise. `freshMemos`:
 * its database handle is a new identity of the service's connection (what is memoised per handle, src/db/memo.ts,
 * starts empty), as a process started now would have.
 */
export async function startNode(
  service: TestService,
  {
    renderCache,
    answerCache = renderCache,
    freshMemos = false,
  }: { renderCache: boolean; answerCache?: boolean; freshMemos?: boolean },
): Promise<Node> {
  const { database } = service;
  const config = { ...service.config, renderCache, answerCache };
  const context = {
    config,
    db: freshMemos ? new Proxy(database.db, {}) : database.db,
    spec: loadSpec(),
    throttle: createThrottle(database.db, config, database.schema),
  };
  const app = createApp(context, { logger: createLogger('silent'), validateResponses: true });
  const server = await new Promise<Server>((resolve) => {
    const s = createHttpServer(app).listen(0, '127.0.0.1', () => resolve(s));
  });
  return { server, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A read as a node answers it: status, the headers a client sees, the body's exact bytes. */
export async function read(node: Node, url: string, auth?: [string, string]) {
  const req = request(node.server).get(url).set('Host', 'calendar.example.org').buffer(true);
  if (auth) req.auth(...auth);
  const res = await req.parse((r, done) => {
    const chunks: Buffer[] = [];
    r.on('data', (chunk: Buffer) => chunks.push(chunk));
    r.on('end', () => done(null, Buffer.concat(chunks)));
  });
  return {
    status: res.status,
    type: res.headers['content-type'],
    total: res.headers['x-wp-total'],
    body: (res.body as Buffer).toString('utf8'),
  };
}

/**
 * A read sent again with `etag` in `If-None-Match` (none: a plain read): its status and every header but those that
 * differ from request to request (`Date`, `X-Request-Id`). A 304 carries the same headers with or without the
 * caches (D151).
 */
export async function revalidate(node: Node, url: string, etag?: string, auth?: [string, string]) {
  const req = request(node.server).get(url).set('Host', 'calendar.example.org');
  if (etag) req.set('If-None-Match', etag);
  if (auth) req.auth(...auth);
  const res = await req;
  const headers = Object.entries(res.headers).filter(([name]) => name !== 'date' && name !== 'x-request-id');
  return { status: res.status, headers: Object.fromEntries(headers) as Record<string, string> };
}

/**
 * Reads each URL (with the role's credentials) on `warm`, then on a node started now whose memos start empty (all
 * it derives found from nothing), and expects the same status, headers and bytes of each.
 */
export async function expectAsFresh(
  service: TestService,
  warm: Node,
  reads: ReadonlyArray<readonly [string, Role | undefined]>,
): Promise<void> {
  const fresh = await startNode(service, { renderCache: false, freshMemos: true });
  try {
    for (const [url, role] of reads) {
      const auth = role && service.as(role);
      expect({ url, role, ...(await read(warm, url, auth)) }).toEqual({ url, role, ...(await read(fresh, url, auth)) });
    }
  } finally {
    await fresh.close();
  }
}

/** The test service's own server as a node (its caches and memos stay warm across a test). */
export const serviceNode = (service: () => TestService): Node => ({
  get server() {
    return service().server;
  },
  close: async () => undefined,
});
