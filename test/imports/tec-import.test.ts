/**
 * `import tec` on every engine: a second instance of this service, seeded through its API, is copied
 * completely into an empty one (counts, slugs, links, dates, record by record); a second run changes nothing; an
 * interrupted run resumes; a site that is not the plugin's API is a clear error.
 */
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';
import { importTec, NotTecError, type TecImportOptions } from '../../src/imports/tec';

type Json = Record<string, unknown> & { id: number };

describe.each(ENGINES)('import tec on %s', (engine) => {
  let source: TestService;
  let target: TestService;
  beforeAll(async () => {
    [source, target] = await Promise.all([startService(engine), startService(engine)]);
    const post = async (route: string, body: object) => {
      const res = await http(source)
        .post(`${NS}/${route}`)
        .auth(...source.as('administrator'))
        .send(body);
      expect(res.status).toBe(201);
      return res.body as Json;
    };
    const music = await post('categories', { name: 'Music', description: 'Sounds' });
    const jazz = await post('categories', { name: 'Jazz', slug: 'jazz-music', parent: music.id });
    await post('categories', { name: 'Bebop', parent: jazz.id });
    await post('categories', { name: 'Theatre' });
    const [live, free] = [await post('tags', { name: 'live' }), await post('tags', { name: 'free entry' })];
    const paradiso = await post('venues', {
      venue: 'Paradiso',
      address: 'Weteringschans 6',
      city: 'Amsterdam',
      country: 'Netherlands',
      zip: '1017 SG',
      geo_lat: 52.3622,
      geo_lng: 4.8838,
      website: 'https://paradiso.example',
    });
    const hall = await post('venues', {
      venue: 'Small Hall',
      city: 'Utrecht',
      image: 'https://images.example.net/hall.jpg',
    });
    const org = await post('organizers', {
      organizer: 'Music Inc',
      email: 'music@example.org',
      phone: '+31 20 000',
      website: 'https://music.example',
    });
    const org2 = await post('organizers', { organizer: 'Helpers', email: 'help@example.org' });
    for (let i = 0; i < 57; i++) {
      // more than one page of 50
      await post('events', {
        title: `Concert ${i}`,
        description: `<p>Night <b>${i}</b></p>`,
        excerpt: `Short ${i}`,
        start_date: `2027-${String(7 + (i % 5)).padStart(2, '0')}-${String(1 + (i % 27)).padStart(2, '0')} 20:00:00`,
        end_date: `2027-${String(7 + (i % 5)).padStart(2, '0')}-${String(1 + (i % 27)).padStart(2, '0')} 23:00:00`,
        timezone: ['Europe/Amsterdam', 'America/New_York', 'UTC+5:30'][i % 3],
        all_day: i % 7 === 0,
        venue: i % 2 ? paradiso.id : hall.id,
        organizer: i % 3 ? [org.id] : [org.id, org2.id],
        categories: i % 2 ? [jazz.id] : [music.id, 'theatre'],
        tags: i % 4 ? [live.id] : [live.id, free.id],
        cost: i % 5 ? `${i} EUR` : 'Free',
        featured: i % 6 === 0,
        sticky: i % 8 === 0,
        website: i % 9 === 0 ? `https://tickets.example/${i}` : undefined,
        image: i % 10 === 0 ? `https://images.example.net/concert-${i}.jpg` : undefined,
      });
    }
    await post('events', {
      title: 'Unpublished plan',
      status: 'draft',
      start_date: '2027-09-01 10:00:00',
      end_date: '2027-09-01 11:00:00',
    });
    await post('events', {
      title: 'Board meeting',
      status: 'private',
      start_date: '2027-09-02 10:00:00',
      end_date: '2027-09-02 11:00:00',
    });
  }, 120_000);
  afterAll(async () => {
    await Promise.all([source?.close(), target?.close()]);
  });

  const root = (service: TestService) => `http://127.0.0.1:${(service.server.address() as { port: number }).port}${NS}`;
  const options = (): TecImportOptions => ({
    author: { id: target.users.administrator.id, login: target.users.administrator.login, role: 'administrator' },
    credentials: { user: source.users.administrator.login, password: source.users.administrator.password },
    fetch: { allowPrivate: true },
    language: 'en',
  });
  const list = async (service: TestService, route: string, query: object = {}): Promise<Json[]> => {
    const items: Json[] = [];
    for (let page = 1; ; page++) {
      const res = await http(service)
        .get(`${NS}/${route}`)
        .auth(...service.as('administrator'))
        .query({ per_page: 50, page, ...query });
      expect(res.status).toBe(200);
      items.push(...(res.body[route] as Json[]));
      if (page >= Number(res.body.total_pages)) return items;
    }
  };
  const everything = {
    status: 'publish,future,draft,pending,private',
    start_date: '1900-01-01',
    end_date: '2200-12-31',
  };

  /** A record without what differs between two sites: ids, URLs, global ids, counts' context. */
  const portable = (item: Json, slugsOf: Record<string, Map<number, string>>): unknown => {
    const drop = new Set([
      'id',
      'global_id',
      'global_id_lineage',
      'url',
      'rest_url',
      'link',
      'urls',
      'json_ld',
      'author',
      'modified',
      'modified_utc',
      'term_taxonomy_id',
      'filter',
      'term_group',
    ]);
    const clean = (value: unknown, key?: string): unknown => {
      if (Array.isArray(value)) return value.map((v) => clean(v));
      if (value && typeof value === 'object') {
        const record = value as Json;
        if (key === 'image' || record.extension !== undefined) return (record as { url?: string }).url;
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(record)) if (!drop.has(k)) out[k] = clean(v, k);
        if ('taxonomy' in record || 'venue' in record || 'organizer' in record) out.ref = record.slug;
        return out;
      }
      if (key === 'parent' && typeof value === 'number') return value ? slugsOf.categories.get(value) : 0;
      if (key === 'website' && typeof value === 'string' && /\/event\//.test(value)) return 'own page';
      return value;
    };
    return clean(item);
  };

  async function snapshot(service: TestService) {
    const categories = await list(service, 'categories', { hide_empty: false });
    const slugsOf = { categories: new Map(categories.map((c) => [c.id, String(c.slug)])) };
    const portableAll = async (route: string, query: object = {}) =>
      (await list(service, route, query))
        .map((item) => portable(item, slugsOf))
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    return {
      categories: categories
        .map((item) => portable(item, slugsOf))
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
      tags: await portableAll('tags', { hide_empty: false }),
      venues: await portableAll('venues', { status: everything.status }),
      organizers: await portableAll('organizers', { status: everything.status }),
      events: await portableAll('events', everything),
    };
  }

  it('copies every category, tag, venue, organizer and event, record by record, and a second run changes nothing', async () => {
    const first = await importTec(target.database.db, target.config, root(source), options());
    expect(first).toEqual({
      categories: { created: 4, updated: 0, unchanged: 0, skipped: [] },
      tags: { created: 2, updated: 0, unchanged: 0, skipped: [] },
      venues: { created: 2, updated: 0, unchanged: 0, skipped: [] },
      organizers: { created: 2, updated: 0, unchanged: 0, skipped: [] },
      events: { created: 59, updated: 0, unchanged: 0, skipped: [] },
    });
    const [copied, original] = [await snapshot(target), await snapshot(source)];
    expect(copied.events).toHaveLength(59);
    for (const key of ['categories', 'tags', 'venues', 'organizers', 'events'] as const)
      expect({ [key]: copied[key] }).toEqual({ [key]: original[key] });

    const modified = (await list(target, 'events', everything)).map((e) => [e.slug, e.modified_utc]);
    const second = await importTec(target.database.db, target.config, root(source), options());
    for (const resource of Object.values(second))
      expect(resource).toMatchObject({ created: 0, updated: 0, skipped: [] });
    expect(second.events.unchanged).toBe(59);
    expect((await list(target, 'events', everything)).map((e) => [e.slug, e.modified_utc])).toEqual(modified);
  });

  it('updates what changed at the source and resumes where a run stopped', async () => {
    const [event] = await list(source, 'events', { search: 'Concert 12' });
    await http(source)
      .post(`${NS}/events/${event.id}`)
      .auth(...source.as('administrator'))
      .send({ title: 'Concert 12 (moved)' })
      .expect(200);
    const [changed] = await list(source, 'events', { search: 'Concert 13' });
    await http(source)
      .post(`${NS}/events/${changed.id}`)
      .auth(...source.as('administrator'))
      .send({ end_date: '2027-10-14 23:30:00' })
      .expect(200);
    // an interrupted run: the mapping of some events is gone, as if the run had stopped before them
    await target.database
      .db('import_mappings')
      .where({ kind: 'events' })
      .whereIn('source_id', [String(event.global_id)])
      .delete();
    const [copy] = await list(target, 'events', { search: 'Concert 12' });
    await http(target)
      .delete(`${NS}/events/${copy.id}`)
      .query({ force: true })
      .auth(...target.as('administrator'))
      .expect(200);
    const run = await importTec(target.database.db, target.config, root(source), options());
    expect(run.events).toMatchObject({ created: 1, updated: 1, unchanged: 57 });
    expect((await list(target, 'events', { search: 'moved' })).map((e) => e.slug)).toEqual([event.slug]);
    expect((await list(target, 'events', { search: 'Concert 13' }))[0].end_date).toBe('2027-10-14 23:30:00');
  });

  it('says clearly when the address is not the plugin API, and refuses private addresses unless allowed', async () => {
    const bad = `http://127.0.0.1:${(source.server.address() as { port: number }).port}/not-an-api`;
    await expect(importTec(target.database.db, target.config, bad, options())).rejects.toThrow(NotTecError);
    await expect(
      importTec(target.database.db, target.config, root(source), { ...options(), fetch: {} }),
    ).rejects.toThrow(/private address/);
  });
});
