/**
 * The representation cache is on by default, RENDER_CACHE=off turns it off, its byte budget holds, and
 * `/metrics` shows its hits, misses, evictions and bytes.
 */
import request from 'supertest';
import { loadConfig } from '../../src/config';
import { createRepresentationCache } from '../../src/cache/representations';
import { createMetrics } from '../../src/metrics/registry';
import { http, NS, startService, type TestService } from '../support/app';
import { SCRAPE, SCRAPE_TOKEN, startNode } from './support';

const value = (metrics: string, name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(metrics)?.[1]);

describe('the representation cache, observed', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService('sqlite', { METRICS_TOKEN: SCRAPE_TOKEN });
  });
  afterAll(() => service.close());

  it('is on by default, and off with RENDER_CACHE=off', () => {
    expect(loadConfig({}).renderCache).toBe(true);
    expect(loadConfig({}).renderCacheBytes).toBe(64 * 1024 * 1024);
    expect(loadConfig({ RENDER_CACHE: 'off' }).renderCache).toBe(false);
    expect(loadConfig({ RENDER_CACHE_MB: '8' }).renderCacheBytes).toBe(8 * 1024 * 1024);
    expect(() => loadConfig({ RENDER_CACHE_MB: '0' })).toThrow(/RENDER_CACHE_MB/);
  });

  it('counts hits, misses and bytes in /metrics; without the cache, only misses', async () => {
    const created = await http(service)
      .post(`${NS}/events`)
      .auth(...service.as('editor'))
      .send({ title: 'Counted', status: 'publish', start_date: '2031-01-05 10:00', end_date: '2031-01-05 11:00' });
    for (const renderCache of [true, false]) {
      const node = await startNode(service, { renderCache, answerCache: false });
      try {
        for (let i = 0; i < 3; i++) await request(node.server).get(`${NS}/events/${created.body.id}`).expect(200);
        const metrics = (
          await request(node.server)
            .get('/metrics')
            .set(...SCRAPE)
        ).text;
        expect(value(metrics, 'representation_cache_hits_total')).toBe(renderCache ? 2 : 0);
        expect(value(metrics, 'representation_cache_misses_total')).toBe(renderCache ? 1 : 3);
        if (renderCache) expect(value(metrics, 'representation_cache_bytes')).toBeGreaterThan(1000);
      } finally {
        await node.close();
      }
    }
  });

  it('keeps within its byte budget, letting the least recently used go', async () => {
    const metrics = createMetrics();
    const cache = createRepresentationCache({ renderCache: true, renderCacheBytes: 10_000 }, metrics);
    const bytes = (key: string) => Buffer.alloc(1_000, key);
    for (let i = 0; i < 50; i++) await cache.fetch([`k${i}`], async () => [bytes(`k${i}`)]);
    const text = await metrics.registry.metrics();
    expect(value(text, 'representation_cache_bytes')).toBeLessThanOrEqual(10_000);
    expect(value(text, 'representation_cache_evictions_total')).toBeGreaterThan(40);
    let rendered = 0;
    const again = await cache.fetch(['k49', 'k0'], async (missing) => {
      rendered = missing.length;
      return missing.map(() => bytes('k0'));
    });
    expect(rendered).toBe(1); // the latest stayed, the oldest went
    expect(again.map((b) => b.length)).toEqual([1_000, 1_000]);
  });
});
