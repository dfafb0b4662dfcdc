/// <reference path="../../bench/autocannon.d.ts" />
/**
 * The bench's `mix` (bench/mix.ts, D105, D106): its URL set and popularity are deterministic, and its staleness
 * check finds a node that serves an answer older than an acknowledged write. The nodes here are small in-memory
 * event stores speaking just the part of the API the mix uses, one of them optionally caching every GET forever.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Mix, MIN_DISTINCT_URLS, mixUrls, ZipfUrls } from '../../bench/mix';
import type { Fixture } from '../../bench/seed';

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

/** What the seeding gives at 10 000 events (478 single-read ids, 100 venues, 50 organizers). */
const TEN_K: Fixture = {
  events: 10_000,
  categoryId: 1,
  searchWord: 'jazz',
  rareWord: 'zeppelin',
  eventIds: range(200, 478),
  standaloneEventIds: range(200, 430),
  venueIds: range(1, 100),
  organizerIds: range(101, 50),
  geoCenter: { lat: 52.37, lng: 4.9 },
  seedSeconds: 0,
};

describe('the mix of URLs', () => {
  it('has at least 2 000 distinct URLs of every kind at 10 000 events, in the same order every time', () => {
    const urls = mixUrls(TEN_K);
    expect(new Set(urls).size).toBe(urls.length);
    expect(urls.length).toBeGreaterThanOrEqual(MIN_DISTINCT_URLS);
    expect(mixUrls(TEN_K)).toEqual(urls);
    const count = (pattern: RegExp) => urls.filter((url) => pattern.test(url)).length;
    expect(count(/\/events\/\d+(\?|$)/)).toBe(478 * 3);
    expect(count(/i18n_language=fr/)).toBe(urls.length / 3);
    expect(count(/\/events\?page=5/)).toBe(3);
    expect(count(/categories=\d+/)).toBe(50 * 3);
    expect(count(/venue=\d+/)).toBe(100 * 3);
    expect(count(/organizer=\d+/)).toBe(50 * 3);
    expect(new Set(urls.flatMap((url) => /search=(\w+)/.exec(url)?.[1] ?? [])).size).toBe(50);
    expect(count(/geoloc_radius=/)).toBe(12 * 3 * 3);
  });

  it('draws them with a Zipf-like skew, the same sequence for the same seed', () => {
    const urls = mixUrls(TEN_K);
    const a = new ZipfUrls(urls, 7);
    const b = new ZipfUrls(urls, 7);
    const draws = Array.from({ length: 20_000 }, () => a.next());
    expect(Array.from({ length: 20_000 }, () => b.next())).toEqual(draws);
    const share = (url: string) => draws.filter((drawn) => drawn === url).length / draws.length;
    const harmonic = urls.reduce((sum, _, rank) => sum + 1 / (rank + 1), 0);
    expect(share(urls[0])).toBeGreaterThan(0.8 / harmonic); // ~12 %
    expect(share(urls[0])).toBeLessThan(1.2 / harmonic);
    expect(share(urls[0])).toBeGreaterThan(5 * share(urls[9]));
  });
});

interface StoredEvent {
  id: number;
  title: string;
  venue: number | null;
  categories: number[];
  trashed: boolean;
}

/** Events shared by the nodes (one database); each node may keep every GET answer forever (`stale`). */
function store(fixture: Fixture): Map<number, StoredEvent> {
  const events = new Map<number, StoredEvent>();
  for (const id of fixture.eventIds)
    events.set(id, { id, title: 'Summer Jazz', venue: null, categories: [1], trashed: false });
  return events;
}

async function node(events: Map<number, StoredEvent>, stale: boolean): Promise<{ port: number; close(): void }> {
  let nextId = 100_000;
  const cache = new Map<string, { status: number; headers: Record<string, string>; body: string }>();
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://node');
      const path = url.pathname.replace('/calendar/events/v1', '');
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        const answer = {
          status,
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        };
        if (req.method === 'GET' && stale) cache.set(req.url ?? '', answer);
        res.writeHead(answer.status, answer.headers).end(answer.body);
      };
      const cached = req.method === 'GET' && stale ? cache.get(req.url ?? '') : undefined;
      if (cached) return res.writeHead(cached.status, cached.headers).end(cached.body);
      const render = (e: StoredEvent) => ({
        id: e.id,
        title: e.title,
        venue: e.venue ? { id: e.venue } : [],
        categories: e.categories.map((id) => ({ id })),
      });
      const one = /^\/events\/(\d+)$/.exec(path);
      const event = one ? events.get(Number(one[1])) : undefined;
      const body = text ? (JSON.parse(text) as Partial<StoredEvent> & { categories?: number[] }) : {};
      if (req.method === 'GET' && path === '/events') {
        const include = Number(url.searchParams.get('include'));
        const search = url.searchParams.get('search');
        const venue = url.searchParams.get('venue');
        const category = url.searchParams.get('categories');
        const found = [...events.values()].filter(
          (e) =>
            !e.trashed &&
            (!include || e.id === include) &&
            (!search || e.title.toLowerCase().includes(search)) &&
            (!venue || e.venue === Number(venue)) &&
            (!category || e.categories.includes(Number(category))),
        );
        return send(200, { events: found.slice(0, 15).map(render) }, { 'x-wp-total': String(found.length) });
      }
      if (req.method === 'POST' && path === '/events') {
        const created = { id: nextId++, title: '', venue: null, categories: [], trashed: false, ...body };
        events.set(created.id, created);
        return send(201, render(created));
      }
      if (!event) return send(404, { code: 'rest-event-not-found' });
      if (req.method === 'GET')
        return event.trashed ? send(403, { code: 'event-not-accessible' }) : send(200, render(event));
      if (req.method === 'POST') {
        Object.assign(event, body);
        return send(200, render(event));
      }
      if (req.method === 'DELETE') {
        event.trashed = true;
        return send(200, render(event));
      }
      send(405, {});
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe('the staleness check', () => {
  const fixture: Fixture = { ...TEN_K, eventIds: range(200, 30), standaloneEventIds: range(200, 30) };
  /** Runs the mix (a write in every 20 requests) until it has made at least five writes, one of each kind. */
  const run = async (staleNodes: boolean[]) => {
    const events = store(fixture);
    const nodes = await Promise.all(staleNodes.map((stale) => node(events, stale)));
    const mix = new Mix(fixture, 20);
    const total = { writes: 0, checks: 0, unexpected: 0, stale: 0, staleSamples: [] as string[] };
    try {
      while (total.writes < 5) {
        const result = await mix.run(
          nodes.map((n) => n.port),
          4,
          1,
        );
        total.writes += result.writes;
        total.checks += result.checks;
        total.unexpected += result.unexpected;
        total.stale += result.stale;
        total.staleSamples.push(...result.staleSamples);
      }
      return total;
    } finally {
      for (const n of nodes) n.close();
    }
  };

  it('finds nothing stale on nodes that answer from the data', async () => {
    const result = await run([false, false]);
    expect(result.writes).toBeGreaterThanOrEqual(5);
    // four reads before and four after each write; a create has no record to read before
    expect(result.checks).toBe(8 * result.writes - 4 * Math.floor((result.writes + 1) / 5));
    expect(result.unexpected).toBe(0);
    expect(result.staleSamples).toEqual([]);
    expect(result.stale).toBe(0);
  });

  it('counts every answer older than an acknowledged write, on one node and on the other of two', async () => {
    for (const nodes of [[true], [false, true]]) {
      const result = await run(nodes);
      expect(result.writes).toBeGreaterThanOrEqual(5);
      expect(result.stale).toBeGreaterThan(0);
      expect(result.staleSamples[0]).toMatch(/^write \d+, event \d+: GET \/calendar\/events\/v1\/events/);
    }
  });
});
