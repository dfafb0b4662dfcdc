/**
 * The embeddable calendar's routes (src/embed/, D140): the versioned bundle cached for a year and within its size
 * budget, the stable entry that imports it, both loadable from any origin, the demo page and its policy. The
 * calendar itself runs in Chromium: test/browser/embed.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import express from 'express';
import request from 'supertest';
import { LANGUAGES } from '../../src/config';
import type { EmbedBuild } from '../../src/embed/build';
import { ENTRY_MAX_AGE, IMMUTABLE, embedRoutes } from '../../src/embed/routes';
import { MESSAGES } from '../../src/embed/client/messages';
import { EMBED_BUILD } from '../../src/paths';
import { embedBuild } from '../support/embed';
import { startService, type TestService } from '../support/app';

/** The bundle's size budget, gzipped (D140): FullCalendar's four plugins, ten locales, DOMPurify and the element. */
const BUDGET_GZIP_BYTES = 100 * 1024;

describe('embeddable calendar routes', () => {
  let build: EmbedBuild;
  let service: TestService;

  beforeAll(async () => {
    build = embedBuild();
    service = await startService('sqlite', { SITE_TIMEZONE: 'Europe/Amsterdam' });
  });
  afterAll(() => service?.close());

  it(`keeps the bundle within its budget of ${BUDGET_GZIP_BYTES / 1024} KiB gzipped`, () => {
    const bytes = fs.readFileSync(path.join(EMBED_BUILD, build.file));
    const gzip = zlib.gzipSync(bytes, { level: 9 }).length;
    expect({ bytes: bytes.length, gzip }).toEqual({ bytes: build.bytes, gzip: build.gzip });
    if (gzip > BUDGET_GZIP_BYTES) {
      throw new Error(
        `the embeddable calendar is ${gzip} bytes gzipped, over its budget of ${BUDGET_GZIP_BYTES}: ` +
          'look for an import that pulled in more than it needs (esbuild --analyze), or argue a new budget in D140',
      );
    }
  });

  it('serves the stable entry: a short-cached module importing the versioned bundle, to any origin', async () => {
    const res = await request(service.app).get('/embed/calendar.js').set('Origin', 'https://blog.example.net');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe(`public, max-age=${ENTRY_MAX_AGE}`);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.text).toBe(`import './${build.file}';\n`);
    const again = await request(service.app).get('/embed/calendar.js').set('If-None-Match', res.headers.etag);
    expect(again.status).toBe(304);
  });

  it('serves the versioned bundle for a year, immutable, gzipped when accepted, to any origin', async () => {
    const url = `/embed/${build.file}`;
    const plain = await request(service.app).get(url).set('Accept-Encoding', 'identity').buffer(true);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe(IMMUTABLE);
    expect(plain.headers['access-control-allow-origin']).toBe('*');
    expect(plain.headers.vary).toBe('Accept-Encoding');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(Number(plain.headers['content-length'])).toBe(build.bytes);

    const gzipped = await request(service.app).get(url).set('Accept-Encoding', 'gzip, br');
    expect(gzipped.status).toBe(200);
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.text.length).toBe(build.bytes); // supertest inflates it

    const head = await request(service.app).head(url).set('Accept-Encoding', 'identity');
    expect(head.status).toBe(200);
    const revalidated = await request(service.app).get(url).set('If-None-Match', gzipped.headers.etag);
    expect(revalidated.status).toBe(304);
  });

  it.each([
    '/embed/calendar.000000000000.js',
    '/embed/manifest.json',
    '/embed/calendar.000000000000.js.gz',
    '/embed/../package.json',
    '/embed/CALENDAR.JS',
  ])('answers %s with the service 404', async (url) => {
    const res = await request(service.app).get(url);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'rest_no_route' });
  });

  it('serves the demo page: each view, its snippet, this service as src, a policy running its own script', async () => {
    const res = await request(service.app).get('/embed/').set('Host', 'calendar.example.org');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    const root = 'http://calendar.example.org/calendar/events/v1';
    for (const view of ['month', 'week', 'day', 'list']) {
      expect(res.text).toContain(`<events-calendar src="${root}" view="${view}" site-timezone="Europe/Amsterdam">`);
      expect(res.text).toContain(
        `&lt;events-calendar src=&quot;${root}&quot; view=&quot;${view}&quot; ` +
          'site-timezone=&quot;Europe/Amsterdam&quot;&gt;',
      );
    }
    expect(res.text).toContain('<script type="module" src="http://calendar.example.org/embed/calendar.js"></script>');
    expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)/); // no inline script
  });

  it('pins the demo calendars to what its query says, in valid forms only', async () => {
    const pinned = await request(service.app).get('/embed/?date=2027-06-15&lang=pt-BR&poll=0.5');
    expect(pinned.text).toContain(
      'view="month" site-timezone="Europe/Amsterdam" date="2027-06-15" lang="pt-br" poll="0.5">',
    );
    expect(pinned.text).toContain('<html lang="pt-br">');
    const hostile = await request(service.app)
      .get('/embed/')
      .query({ date: '"><script>alert(1)</script>', lang: 'xx', poll: '1e9' });
    expect(hostile.status).toBe(200);
    expect(hostile.text).not.toContain('alert(1)');
    expect(hostile.text).not.toMatch(/<events-calendar[^>]* (date|lang|poll)="/);
  });

  it('lives under BASE_PATH, and answers any origin even when the API allows none', async () => {
    const other = await startService('sqlite', { BASE_PATH: '/cal', CORS_ORIGINS: '' }, undefined, {
      createUsers: false,
    });
    try {
      const entry = await request(other.app).get('/cal/embed/calendar.js').set('Origin', 'https://blog.example.net');
      expect(entry.status).toBe(200);
      expect(entry.headers['access-control-allow-origin']).toBe('*');
      const page = await request(other.app).get('/cal/embed/').set('Host', 'example.org');
      expect(page.text).toContain('src="http://example.org/cal/embed/calendar.js"');
      expect(page.text).toContain('src="http://example.org/cal/calendar/events/v1"');
      expect((await request(other.app).get('/embed/calendar.js')).status).toBe(404);
    } finally {
      await other.close();
    }
  });

  it('answers nothing before a build', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'embed-'));
    const app = express().use('/embed', embedRoutes({ siteTimezone: 'UTC' }, empty));
    for (const url of ['/embed/calendar.js', '/embed/', `/embed/${build.file}`])
      expect([url, (await request(app).get(url)).status]).toEqual([url, 404]);
  });

  it('has its texts in every language of the service', () => {
    expect(Object.keys(MESSAGES).sort()).toEqual([...LANGUAGES].sort());
    const keys = Object.keys(MESSAGES.en).sort();
    for (const lang of LANGUAGES) expect([lang, Object.keys(MESSAGES[lang]).sort()]).toEqual([lang, keys]);
  });
});
