/** Conditional reads, cache headers, security headers, CORS and log hygiene, on every engine. */
import { Writable } from 'node:stream';
import pino from 'pino';
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';
import { REDACTED_PATHS } from '../../src/logger';
import { SECURITY_HEADERS } from '../../src/http/hardening';

describe.each(ENGINES)('caching and hardening on %s', (engine) => {
  let service: TestService;
  let log = '';
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        log += chunk.toString();
        done();
      },
    });
    const logger = pino({ level: 'info', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, sink);
    service = await startService(engine, { CORS_ORIGINS: '*' }, logger);
  });
  afterAll(() => service.close());

  const event = async (fields: object = {}) =>
    (
      await http(service)
        .post(`${NS}/events`)
        .auth(...service.as('editor'))
        .send({ title: 'Cached', start_date: '2031-03-01 10:00', end_date: '2031-03-01 11:00', ...fields })
    ).body;

  it('gives reads a strong ETag and answers If-None-Match with 304 and no body', async () => {
    const e = await event();
    const first = await http(service).get(`${NS}/events/${e.id}`);
    // a single record's ETag leads with its version (`<id>-<version>.`, for If-Match), then the digest
    expect(first.headers.etag).toMatch(new RegExp(`^"${e.id}-\\d+\\.[\\w-]{20,}"$`));
    expect(first.headers['cache-control']).toBe('public, max-age=30');
    expect(first.headers['last-modified']).toBe(new Date(`${e.modified_utc.replace(' ', 'T')}Z`).toUTCString());
    const again = await http(service).get(`${NS}/events/${e.id}`).set('If-None-Match', first.headers.etag);
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    const head = await http(service).head(`${NS}/events/${e.id}`).set('If-None-Match', first.headers.etag);
    expect(head.status).toBe(304);
    const since = await http(service)
      .get(`${NS}/events/${e.id}`)
      .set('If-Modified-Since', first.headers['last-modified']);
    expect(since.status).toBe(304);
  });

  it('answers 304 with what guides caches and CORS, not the headers of a document (D151)', async () => {
    const e = await event();
    const url = `${NS}/events/${e.id}`;
    const origin = 'https://app.example.org';
    // another spelling of the same answer gives its ETag without keeping an answer for `url`
    const { etag, 'last-modified': modified } = (await http(service).get(url).query({ i18n_language: 'en' })).headers;
    const computed = await http(service).get(url).set('If-None-Match', etag).set('Origin', origin);
    expect((await http(service).get(url)).headers.etag).toBe(etag); // now kept whole: the next 304s are replays
    const replayed = await http(service).get(url).set('If-None-Match', etag).set('Origin', origin);
    const since = await http(service).get(url).set('If-Modified-Since', modified).set('Origin', origin);
    expect(SECURITY_HEADERS).toEqual(expect.arrayContaining(['Content-Security-Policy', 'X-Frame-Options']));
    for (const res of [computed, replayed, since]) {
      expect(res.status).toBe(304);
      expect(res.headers).toMatchObject({ etag, 'last-modified': modified, 'access-control-allow-origin': '*' });
      expect(res.headers).toMatchObject({ 'cache-control': 'public, max-age=30', vary: 'Authorization, Accept' });
      expect(res.headers['x-request-id']).toBeDefined();
      const present = [...SECURITY_HEADERS, 'Content-Type'].filter((name) => res.headers[name.toLowerCase()]);
      expect(present).toEqual([]);
      expect(Object.keys(res.headers).sort()).toEqual(Object.keys(computed.headers).sort());
    }
  });

  it('varies the ETag by language and by caller, and never caches authenticated answers', async () => {
    const e = await event();
    const anonymous = await http(service).get(`${NS}/events/${e.id}`);
    const dutch = await http(service).get(`${NS}/events/${e.id}`).query({ i18n_language: 'nl' });
    const editor = await http(service)
      .get(`${NS}/events/${e.id}`)
      .auth(...service.as('editor'));
    const author = await http(service)
      .get(`${NS}/events/${e.id}`)
      .auth(...service.as('author'));
    expect(new Set([anonymous, dutch, editor, author].map((r) => r.headers.etag)).size).toBe(4);
    expect(editor.headers['cache-control']).toBe('no-store');
    expect(editor.headers.vary).toContain('Authorization');
    const stale = await http(service)
      .get(`${NS}/events/${e.id}`)
      .auth(...service.as('editor'))
      .set('If-None-Match', anonymous.headers.etag);
    expect(stale.status).toBe(200);
  });

  it('changes the ETag of a list when its content changes', async () => {
    const list = () => http(service).get(`${NS}/events`).query({ start_date: '2031-01-01', end_date: '2031-12-31' });
    const before = await list();
    expect((await list().set('If-None-Match', before.headers.etag)).status).toBe(304);
    await event({ title: 'Another' });
    const after = await list().set('If-None-Match', before.headers.etag);
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  it('marks writes and errors no-store; errors carry no ETag, a write the ETag of its record', async () => {
    const created = await http(service)
      .post(`${NS}/tags`)
      .auth(...service.as('editor'))
      .send({ name: 'No store' });
    expect(created.headers['cache-control']).toBe('no-store');
    expect(created.headers.etag).toMatch(new RegExp(`^"${created.body.id}-\\d+\\.v[\\w-]+"$`)); // test/http/etags.test.ts
    const missing = await http(service).get(`${NS}/events/999999`);
    expect(missing.headers['cache-control']).toBe('no-store');
    expect(missing.headers.etag).toBeUndefined();
    const unauthorised = await http(service).get(`${NS}/tags`).auth('nobody', 'nothing');
    expect(unauthorised.headers['cache-control']).toBe('no-store');
  });

  it('sends security headers', async () => {
    const res = await http(service).get(`${NS}/tags`);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.headers['x-powered-by']).toBeUndefined();
    expect(res.headers['strict-transport-security']).toBeDefined();
  });

  it('answers CORS preflights and exposes the paging and caching headers', async () => {
    const preflight = await http(service)
      .options(`${NS}/events`)
      .set('Origin', 'https://app.example.org')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'authorization,content-type');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['access-control-allow-headers']).toContain('Authorization');
    const res = await http(service).get(`${NS}/events`).set('Origin', 'https://app.example.org');
    for (const header of ['X-TEC-Total', 'X-WP-Total', 'X-WP-TotalPages', 'Link', 'ETag']) {
      expect(res.headers['access-control-expose-headers']).toContain(header);
    }
  });

  it('lets browser clients on other origins send conditional and idempotent writes (found by a red team)', async () => {
    const preflight = await http(service)
      .options(`${NS}/events/1`)
      .set('Origin', 'https://app.example.org')
      .set('Access-Control-Request-Method', 'PATCH')
      .set('Access-Control-Request-Headers', 'authorization,if-match,if-unmodified-since,idempotency-key');
    expect(preflight.status).toBe(204);
    const allowed = String(preflight.headers['access-control-allow-headers'])
      .toLowerCase()
      .split(/\s*,\s*/);
    expect(allowed).toEqual(
      expect.arrayContaining(['authorization', 'if-match', 'if-unmodified-since', 'idempotency-key']),
    );
    const res = await http(service).get(`${NS}/events`).set('Origin', 'https://app.example.org');
    expect(res.headers['access-control-expose-headers']).toContain('Idempotent-Replayed');
  });

  it('masks secret query parameters in logged URLs whatever their encoding (found by a red team)', async () => {
    const names = ['%70assword', '%50ASSWORD', 'Key', '%6b%65%79', 'pass%5B%5D', 'pwd[]', 'PWD%5b0%5d', '%2570ass'];
    const secrets = names.map((name, i) => [name, `masked-secret-${i}`]);
    for (const [name, secret] of secrets) await http(service).get(`${NS}/tags?per_page=2&${name}=${secret}`);
    for (const [name, secret] of secrets) {
      expect([name, log.includes(secret)]).toEqual([name, false]);
      expect(log).toContain(`${name}=[redacted]`);
    }
  });

  it('keeps passwords and credentials out of the logs', async () => {
    const e = await event({ password: 'body-secret-1' });
    await http(service).get(`${NS}/events/${e.id}`).query({ password: 'query-secret-2' });
    await http(service).get(`${NS}/events`).query({ password: 'list-secret-3' });
    await http(service).get(`${NS}/tags`).auth('someone', 'basic-secret-4');
    expect(log).toContain(`/events/${e.id}`);
    for (const secret of [
      'body-secret-1',
      'query-secret-2',
      'list-secret-3',
      'basic-secret-4',
      Buffer.from('someone:basic-secret-4').toString('base64'),
    ]) {
      expect(log).not.toContain(secret);
    }
  });
});

describe('CORS limited to listed origins', () => {
  it('reflects only a listed origin', async () => {
    const service = await startService('sqlite', { CORS_ORIGINS: 'https://good.example.org' });
    try {
      const good = await http(service).get(`${NS}/tags`).set('Origin', 'https://good.example.org');
      expect(good.headers['access-control-allow-origin']).toBe('https://good.example.org');
      const bad = await http(service).get(`${NS}/tags`).set('Origin', 'https://evil.example.org');
      expect(bad.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await service.close();
    }
  });
});
