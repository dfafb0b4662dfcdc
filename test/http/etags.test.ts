/**
 * Single reads' ETags give nothing away (keyed with the service's secret), are the same on every node of
 * one database, and write answers carry the ETag of the record they wrote, on every engine.
 */
import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import request from 'supertest';
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';
import { createApp } from '../../src/app';
import { createHttpServer } from '../../src/http/request-classes';
import { createLogger } from '../../src/logger';
import { loadSpec } from '../../src/http/spec';
import { createThrottle } from '../../src/http/throttle';
import { dataVersion } from '../../src/db/data-version';

const HOST = 'calendar.example.org';
/** 25 requests in one test: a bound for a loaded machine, not a measure of speed. */
const WRITES_BOUND_MS = 120_000;

describe.each(ENGINES)('ETags on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine);
  });
  afterAll(() => service.close());

  const editor = () => service.as('editor');
  const event = async (title: string) =>
    (
      await http(service)
        .post(`${NS}/events`)
        .auth(...editor())
        .send({ title, status: 'publish', start_date: '2031-03-01 10:00', end_date: '2031-03-01 11:00' })
    ).body;

  describe('write answers carry the ETag of the record they wrote', () => {
    const KINDS: Array<[string, string, object, boolean]> = [
      ['events', 'title', { start_date: '2031-04-01 10:00', end_date: '2031-04-01 11:00', status: 'publish' }, true],
      ['venues', 'venue', { status: 'publish' }, true],
      ['organizers', 'organizer', { status: 'publish' }, true],
      ['categories', 'name', {}, false],
      ['tags', 'name', {}, false],
    ];
    it.each(KINDS)(
      '%s: create, then POST, PUT and PATCH by id (and by slug)',
      async (path, name, fields, slugs) => {
        const as = editor();
        const get = (url: string) =>
          http(service)
            .get(url)
            .auth(...as);
        const created = await http(service)
          .post(`${NS}/${path}`)
          .auth(...as)
          .send({ [name]: `Tagged ${path}`, ...fields });
        expect(created.status).toBe(201);
        const url = `${NS}/${path}/${created.body.id}`;
        // the create names its record's GET: the same ETag, byte for byte
        expect(created.headers.etag).toMatch(new RegExp(`^"${created.body.id}-\\d+\\.v[\\w-]+"$`));
        expect((await get(url)).headers.etag).toBe(created.headers.etag);
        let held = created.headers.etag as string;
        const targets = slugs ? [url, `${NS}/${path}/by-slug/${created.body.slug}`] : [url];
        for (const target of targets) {
          for (const method of ['post', 'put', 'patch'] as const) {
            const written = await http(service)
              [method](target)
              .auth(...as)
              .set('If-Match', held) // the last answer's ETag, as is
              .send({ [name]: `Tagged ${path} ${method}` });
            expect([method, target, written.status]).toEqual([method, target, 200]);
            expect(written.headers.etag).not.toBe(held);
            const next = await get(target);
            expect([method, target, written.headers.etag]).toEqual([method, target, next.headers.etag]);
            expect((await get(target).set('If-None-Match', written.headers.etag)).status).toBe(304);
            held = written.headers.etag;
          }
        }
        const stale = await http(service)
          .patch(url)
          .auth(...as)
          .set('If-Match', created.headers.etag)
          .send({});
        expect(stale.status).toBe(412);
      },
      WRITES_BOUND_MS,
    );
  });

  describe('keyed with the service secret', () => {
    it('a public ETag is not the unkeyed hash of any small data version (the attacker tries 0..100000)', async () => {
      const e = await event('Public');
      const url = `${NS}/events/${e.id}`;
      const res = await http(service).get(url).set('Host', HOST);
      const state = (res.headers.etag as string).match(/^"\d+-\d+\.(v[\w-]+)"$/)?.[1];
      expect(state).toBeDefined();
      // what the attacker knows: caller 0 (anonymous), the language, the host, the URL, the representation
      const guesses = new Set<string>();
      for (let version = 0; version <= 100_000; version++) {
        const text = `${version}|0|en|http://${HOST}|${url}|json`;
        guesses.add(`v${createHash('sha256').update(text).digest('base64url').slice(0, 31)}`);
      }
      expect(await dataVersion(service.database.db)).toBeLessThan(100_000); // the real one was among the guesses
      expect(guesses.has(state as string)).toBe(false);
    });

    it('two services on one database give the same ETag for the same read, and a 304 across them', async () => {
      const e = await event('Seen by both nodes');
      const { config, database } = service;
      const context = {
        config,
        db: database.db,
        spec: loadSpec(),
        throttle: createThrottle(database.db, config, database.schema),
      };
      const other = createApp(context, { logger: createLogger('silent') });
      const server = await new Promise<Server>((resolve) => {
        const s = createHttpServer(other).listen(0, '127.0.0.1', () => resolve(s));
      });
      try {
        const url = `${NS}/events/${e.id}`;
        const first = await http(service).get(url).set('Host', HOST);
        const second = await request(server).get(url).set('Host', HOST);
        expect(second.headers.etag).toBe(first.headers.etag);
        const cached = await request(server).get(url).set('Host', HOST).set('If-None-Match', first.headers.etag);
        expect(cached.status).toBe(304);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });
});
