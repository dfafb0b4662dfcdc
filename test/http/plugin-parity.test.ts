/**
 * Behaviour a side-by-side run against the plugin found different, now as the plugin has it, on every engine
 * (docs/compatibility.md §1.2, §1.4b, §3, §4.1, §6): time zone abbreviations, slugs, category links, trashed events
 * read by their editors, cost text and the `Allow` header.
 */
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';
import type { Role } from '../../src/users/roles';

describe.each(ENGINES)('plugin parity on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine);
  });
  afterAll(() => service.close());

  let n = 0;
  const post = (path: string, body: object, role: Role = 'administrator') =>
    http(service)
      .post(`${NS}/${path}`)
      .auth(...service.as(role))
      .send(body);
  const createdEvent = async (body: object = {}) => {
    const day = { start_date: '2031-04-12 09:00:00', end_date: '2031-04-12 10:00:00' };
    const res = await post('events', { title: `Parity ${++n}`, ...day, ...body });
    expect(res.status).toBe(201);
    return res.body;
  };
  const get = (path: string, role?: Role) => {
    const req = http(service).get(`${NS}/${path}`);
    return role ? req.auth(...service.as(role)) : req;
  };

  it.each([
    ['Asia/Tokyo', '2031-01-15', 'JST'], // Intl alone says 'GMT+9'
    ['Europe/Berlin', '2031-01-15', 'CET'],
    ['Europe/Berlin', '2031-07-15', 'CEST'],
    ['America/New_York', '2031-01-15', 'EST'],
    ['America/New_York', '2031-07-15', 'EDT'],
    ['America/Sao_Paulo', '2031-01-15', '-03'], // the tz database's numeric name, as PHP prints it
  ])('names %s on %s by the tz database abbreviation, %s', async (timezone, day, abbr) => {
    const e = await createdEvent({ timezone, start_date: `${day} 10:00:00`, end_date: `${day} 11:00:00` });
    expect(e.timezone_abbr).toBe(abbr);
    expect((await get(`events/${e.id}`)).body.timezone_abbr).toBe(abbr);
  });

  it('makes slugs as WordPress does: entities and punctuation dropped, not spelled out', async () => {
    const e = await createdEvent({ title: 'Title with "quotes" & amp' });
    expect(e.slug).toBe('title-with-quotes-amp');
    expect((await createdEvent({ slug: 'Rock &amp; Roll – Straße' })).slug).toBe('rock-roll-strasse');
    const venue = await post('venues', { venue: 'Hall & Café «Nord»' });
    expect(venue.body.slug).toBe('hall-cafe-nord');
    const tag = await post('tags', { name: 'Rock & Roll' });
    expect(tag.body.slug).toBe('rock-roll');
  });

  it("links a child category under its ancestors' slugs, following their changes", async () => {
    const music = (await post('categories', { name: 'Music' })).body;
    const jazz = (await post('categories', { name: 'Jazz', parent: music.id })).body;
    const bebop = (await post('categories', { name: 'Bebop', parent: jazz.id })).body;
    const site = new URL(music.url).origin;
    expect(music.url).toBe(`${site}/events/category/music/`);
    expect(jazz.url).toBe(`${site}/events/category/music/jazz/`);
    expect((await get(`categories/${bebop.id}`)).body.url).toBe(`${site}/events/category/music/jazz/bebop/`);

    const cursor = (await get('changes')).body.next_cursor;
    expect((await post(`categories/${music.id}`, { slug: 'sounds' })).status).toBe(200);
    expect((await get(`categories/${bebop.id}`)).body.url).toBe(`${site}/events/category/sounds/jazz/bebop/`);
    // the descendants' links changed: the change feed (and so webhooks and caches) hears of them
    const changes = (await get(`changes?cursor=${encodeURIComponent(cursor)}`)).body.changes;
    const changed = changes.map((c: { id: number; record: { url: string } }) => [c.id, c.record.url]);
    expect(changed).toEqual(
      expect.arrayContaining([
        [jazz.id, `${site}/events/category/sounds/jazz/`],
        [bebop.id, `${site}/events/category/sounds/jazz/bebop/`],
      ]),
    );
    const listed = await get(`categories?include=${jazz.id},${bebop.id}&orderby=id&hide_empty=false`);
    expect(listed.body.categories.map((c: { url: string }) => c.url)).toEqual([
      `${site}/events/category/sounds/jazz/`,
      `${site}/events/category/sounds/jazz/bebop/`,
    ]);

    const del = await http(service)
      .delete(`${NS}/categories/${jazz.id}`)
      .auth(...service.as('administrator'))
      .query({ force: true });
    expect(del.status).toBe(200);
    expect((await get(`categories/${bebop.id}`)).body.url).toBe(`${site}/events/category/sounds/bebop/`);
  });

  it('prints a range priced on one side only with the site symbol, as the plugin does', async () => {
    const e = await createdEvent({ cost: '10 - 25 USD' });
    expect(e.cost).toBe('$10 – $25');
    expect(e.cost_details).toMatchObject({ currency_symbol: '', currency_position: '', values: ['10', '25'] });
    expect((await createdEvent({ cost: '€6.50 – €8.50' })).cost).toBe('€6.50 – €8.50');
  });

  it('sends Allow with the methods this caller may use on the route, record by record', async () => {
    const e = await createdEvent({}); // the administrator's
    const allow = async (path: string, role?: Role) => (await get(path, role)).headers.allow;
    expect(await allow(`events/${e.id}`)).toBe('GET');
    expect(await allow(`events/${e.id}`, 'administrator')).toBe('GET, POST, PUT, PATCH, DELETE');
    expect(await allow(`events/by-slug/${e.slug}`, 'editor')).toBe('GET, POST, PUT, PATCH, DELETE');
    expect(await allow(`events/${e.id}`, 'author')).toBe('GET'); // another's published event
    const own = await post(
      'events',
      { title: 'Mine', start_date: '2031-05-01 10:00', end_date: '2031-05-01 11:00' },
      'author',
    );
    expect(await allow(`events/${own.body.id}`, 'author')).toBe('GET, POST, PUT, PATCH, DELETE');
    expect(await allow('events')).toBe('GET');
    expect(await allow('events', 'contributor')).toBe('GET, POST');
    expect(await allow('events/ical')).toBe('GET');
    const venue = await post('venues', { venue: 'Allow Hall' });
    expect(await allow(`venues/${venue.body.id}`)).toBe('GET');
    expect(await allow(`venues/${venue.body.id}`, 'editor')).toBe('GET, POST, PUT, PATCH, DELETE');
    expect(await allow('categories', 'editor')).toBe('GET, POST');
    expect((await get(`events/${e.id}`, 'subscriber')).headers.allow).toBe('GET');
    const draft = await createdEvent({ status: 'draft' });
    const refused = await get(`events/${draft.id}`, 'author'); // another's draft: 403, and no edits offered
    expect([refused.status, refused.headers.allow]).toEqual([403, 'GET']);
  });
});
