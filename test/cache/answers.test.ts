/**
 * The answer cache (src/cache/answers.ts): a repeated read is answered whole from memory, with the headers and
 * bytes of the first answer, a 304 when its ETag is named; spellings that differ only in the order of parameters
 * share an entry; what depends on the instant of reading, or carries a secret, is never kept; the day's turn in the
 * site's zone retires the default window's lists; the budget holds however many spellings a client makes up.
 * Writes on any node are the exactness suites' (exactness.test.ts, property.test.ts run with it on).
 */
import request from 'supertest';
import { loadConfig } from '../../src/config';
import { manualClock, setClock, clockStartingAt } from '../../src/domain/clock';
import { ENGINES } from '../support/engines';
import { http, NS, startService, TEST_NOW, type TestService } from '../support/app';
import { closeAll, read, counterIn, SCRAPE_TOKEN, scrape, startNode, type Node } from './support';

const metric = async (node: Node, name: string) => counterIn(await scrape(node), name);

it('is on by default, off with ANSWER_CACHE=off, and its budget is ANSWER_CACHE_MB', () => {
  expect(loadConfig({}).answerCache).toBe(true);
  expect(loadConfig({}).answerCacheBytes).toBe(32 * 1024 * 1024);
  expect(loadConfig({ ANSWER_CACHE: 'off' }).answerCache).toBe(false);
  expect(loadConfig({ ANSWER_CACHE_MB: '4' }).answerCacheBytes).toBe(4 * 1024 * 1024);
  expect(() => loadConfig({ ANSWER_CACHE_MB: '0' })).toThrow(/ANSWER_CACHE_MB/);
});

describe.each(ENGINES)('the answer cache on %s', (engine) => {
  let service: TestService;
  let cached: Node;
  let reference: Node;
  let id: number;
  const clock = manualClock('2027-06-16T03:59:50Z'); // 23:59:50 on 15 June in New York
  beforeAll(async () => {
    service = await startService(engine, { METRICS_TOKEN: SCRAPE_TOKEN, SITE_TIMEZONE: 'America/New_York' });
    const post = (body: object) =>
      http(service)
        .post(`${NS}/events`)
        .auth(...service.as('editor'))
        .send({ status: 'publish', ...body });
    // 10:00–11:00 on 14 June, New York: in the default window (from yesterday) until 16 June begins there
    id = (await post({ title: 'Yesterday', start_date: '2027-06-14 10:00', end_date: '2027-06-14 11:00' })).body.id;
    await post({ title: 'Later', start_date: '2027-07-01 10:00', end_date: '2027-07-01 11:00' });
    cached = await startNode(service, { renderCache: true });
    reference = await startNode(service, { renderCache: false });
    setClock(clock);
  });
  afterAll(async () => {
    setClock(clockStartingAt(TEST_NOW));
    await closeAll(service, cached, reference);
  });

  const hits = () => metric(cached, 'answer_cache_hits_total');
  const get = (url: string) => request(cached.server).get(`${NS}/${url}`).set('Host', 'calendar.example.org');

  it('answers a repeat with the first answer, in any order of its parameters, and 304 to its ETag', async () => {
    const first = await get(`events?per_page=5&categories=&featured=0`).buffer(true);
    expect(first.status).toBe(200);
    const before = await hits();
    const again = await get(`events?featured=0&per_page=5&categories=`).buffer(true);
    expect(await hits()).toBe(before + 1);
    expect(again.text).toBe(first.text);
    for (const name of ['etag', 'x-wp-total', 'link', 'allow', 'cache-control', 'content-type', 'vary'])
      expect(again.headers[name]).toBe(first.headers[name]);
    const conditional = await get(`events?per_page=5&featured=0&categories=`).set('If-None-Match', first.headers.etag);
    expect(conditional.status).toBe(304);
    expect(conditional.text).toBe('');
    expect(await hits()).toBe(before + 2);
    const head = await request(cached.server)
      .head(`${NS}/events?per_page=5&categories=&featured=0`)
      .set('Host', 'calendar.example.org');
    expect(head.status).toBe(200);
    expect(head.headers.etag).toBe(first.headers.etag);
    expect(await hits()).toBe(before + 3);
  });

  it('keeps one entry per caller', async () => {
    const anonymous = await get(`events/${id}`);
    const editor = await get(`events/${id}`).auth(...service.as('editor'));
    expect(editor.headers['cache-control']).toBe('no-store');
    expect(anonymous.headers['cache-control']).toMatch(/public/);
    const before = await hits();
    expect((await get(`events/${id}`).auth(...service.as('editor'))).headers['cache-control']).toBe('no-store');
    expect((await get(`events/${id}`)).headers['cache-control']).toMatch(/public/);
    expect(await hits()).toBe(before + 2);
  });

  it.each([
    ['a relative date', 'events?start_date=today'],
    ['a relative date among fixed ones', 'events?start_date=2027-06-01&end_date=%2B1%20week'],
    ['a parameter read against now', 'venues?only_with_upcoming=1'],
    ['a password', `events/${0}?password=sesame`],
    ['a feed key', 'events?key=someone%3Asecret'],
  ])('never keeps an answer with %s', async (_what, url) => {
    const path = url.replace('events/0', `events/${id}`);
    await get(path);
    const before = await hits();
    await get(path);
    expect(await hits()).toBe(before);
  });

  it.each([
    'events?start_date=2027-06-01&end_date=2027-06-30%2023:00&strict_dates=1',
    'events?start_date=1812988800',
    'venues',
    'venues?only_with_upcoming=0',
    'organizers',
    'categories?hide_empty=1',
    'tags',
  ])('keeps %s', async (url) => {
    await get(url);
    const before = await hits();
    await get(url);
    expect(await hits()).toBe(before + 1);
  });

  it('lets the default window move on when the day turns in the site zone', async () => {
    clock.set('2027-06-16T03:59:50Z');
    const before = await read(reference, `${NS}/events`);
    expect(before.body).toContain('Yesterday');
    for (let i = 0; i < 2; i++) expect(await read(cached, `${NS}/events`)).toEqual(before);
    clock.set('2027-06-16T04:00:00Z'); // 00:00 on 16 June in New York: 14 June is no longer "yesterday"
    const after = await read(reference, `${NS}/events`);
    expect(after.body).not.toContain('Yesterday');
    expect(await read(cached, `${NS}/events`)).toEqual(after);
  });

  it('stays within its budget whatever spellings a client makes up', async () => {
    const small = await startService(engine, { METRICS_TOKEN: SCRAPE_TOKEN, ANSWER_CACHE_MB: '1' });
    const node = await startNode(small, { renderCache: true });
    try {
      const filler = 'x'.repeat(1800);
      for (let i = 0; i < 300; i++) {
        const res = await request(node.server).get(`${NS}/categories?made_up_${i}=${filler}`);
        expect(res.status).toBe(200);
      }
      expect(await metric(node, 'answer_cache_bytes')).toBeLessThanOrEqual(1024 * 1024);
      expect(await metric(node, 'answer_cache_evictions_total')).toBeGreaterThan(0);
    } finally {
      await node.close();
      await small.close();
    }
  });
});
