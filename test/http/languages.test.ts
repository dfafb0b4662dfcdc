/**
 * Multilingual content through HTTP, on every engine (docs/decisions.md D31): writes in a language set
 * that language's text only, reads fall back field by field to the original, search follows the language, and
 * every response says its language.
 */
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';

describe.each(ENGINES)('content languages on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine, { DEFAULT_LANGUAGE: 'en' });
  });
  afterAll(() => service.close());

  const write = (method: 'post' | 'patch', path: string, body: object, lang?: string) =>
    http(service)
      [method](`${NS}${path}`)
      .query(lang ? { i18n_language: lang } : {})
      .auth(...service.as('editor'))
      .send(body);
  const read = (path: string, lang?: string, query: object = {}) =>
    http(service)
      .get(`${NS}${path}`)
      .query({ ...query, ...(lang ? { i18n_language: lang } : {}) });

  it('keeps each language of an event apart and falls back field by field', async () => {
    const event = (
      await write('post', '/events', {
        title: 'River cleanup',
        description: 'Bring gloves',
        excerpt: 'Gloves',
        start_date: '2031-04-12 09:00',
        end_date: '2031-04-12 12:00',
      })
    ).body;
    const nl = await write('patch', `/events/${event.id}`, { title: 'Rivier opruimen' }, 'nl');
    expect(nl.status).toBe(200);
    expect(nl.headers['content-language']).toBe('nl');
    expect(nl.body).toMatchObject({ title: 'Rivier opruimen', description: '<p>Bring gloves</p>', slug: event.slug });
    await write('patch', `/events/${event.id}`, { description: 'Handschoenen meenemen' }, 'nl').expect(200);

    const english = await read(`/events/${event.id}`);
    expect(english.headers['content-language']).toBe('en');
    expect(english.body).toMatchObject({
      title: 'River cleanup',
      description: '<p>Bring gloves</p>',
      excerpt: '<p>Gloves</p>',
    });
    const dutch = await read(`/events/${event.id}`, 'nl');
    expect(dutch.body).toMatchObject({
      title: 'Rivier opruimen',
      description: '<p>Handschoenen meenemen</p>',
      excerpt: '<p>Gloves</p>',
    });
    expect((await read(`/events/${event.id}`, 'fr')).body.title).toBe('River cleanup');

    const listed = await read('/events', 'nl', { include: event.id });
    expect(listed.body.events[0].title).toBe('Rivier opruimen');
    expect((await read(`/events/by-slug/${event.slug}`, 'nl')).body.title).toBe('Rivier opruimen');
  });

  it('creates records in the request language and translates them back into others', async () => {
    const event = (
      await write(
        'post',
        '/events',
        { title: 'Fête de la musique', start_date: '2031-06-21 18:00', end_date: '2031-06-21 23:00' },
        'fr',
      )
    ).body;
    await write('patch', `/events/${event.id}`, { title: 'Music day' }, 'en').expect(200);
    expect((await read(`/events/${event.id}`, 'fr')).body.title).toBe('Fête de la musique');
    expect((await read(`/events/${event.id}`, 'en')).body.title).toBe('Music day');
    expect((await read(`/events/${event.id}`, 'de')).body.title).toBe('Fête de la musique');
  });

  it('searches the text of the requested language, with the same fallback', async () => {
    const event = (
      await write('post', '/events', {
        title: 'Harbour festival',
        start_date: '2031-07-01 10:00',
        end_date: '2031-07-01 12:00',
      })
    ).body;
    await write('patch', `/events/${event.id}`, { title: 'Havenfestival' }, 'nl').expect(200);
    const ids = async (search: string, lang?: string) =>
      (await read('/events', lang, { search, start_date: '2031-01-01', end_date: '2031-12-31' })).body.events.map(
        (e: { id: number }) => e.id,
      );
    expect(await ids('havenfestival', 'nl')).toEqual([event.id]);
    expect(await ids('havenfestival')).toEqual([]);
    expect(await ids('harbour', 'nl')).toEqual([]);
    expect(await ids('harbour', 'sv')).toEqual([event.id]);
  });

  it('translates venues, organizers, categories and tags, also where events embed them', async () => {
    const venue = (await write('post', '/venues', { venue: 'Town hall', description: 'Main square' })).body;
    const organizer = (await write('post', '/organizers', { organizer: 'Friends of the river' })).body;
    const category = (await write('post', '/categories', { name: 'Outdoors', description: 'Fresh air' })).body;
    const tag = (await write('post', '/tags', { name: 'Family' })).body;
    await write('patch', `/venues/${venue.id}`, { venue: 'Stadhuis' }, 'nl').expect(200);
    await write('patch', `/organizers/${organizer.id}`, { organizer: 'Vrienden van de rivier' }, 'nl').expect(200);
    await write('patch', `/categories/${category.id}`, { name: 'Buiten' }, 'nl').expect(200);
    await write('patch', `/tags/${tag.id}`, { name: 'Gezin', description: 'Voor iedereen' }, 'nl').expect(200);
    const event = (
      await write('post', '/events', {
        title: 'Picnic',
        start_date: '2031-08-01 12:00',
        end_date: '2031-08-01 15:00',
        venue: venue.id,
        organizer: [organizer.id],
        categories: [category.id],
        tags: [tag.id],
      })
    ).body;

    const dutch = (await read(`/events/${event.id}`, 'nl')).body;
    expect(dutch.venue).toMatchObject({ venue: 'Stadhuis', description: '<p>Main square</p>' });
    expect(dutch.organizer[0].organizer).toBe('Vrienden van de rivier');
    expect(dutch.categories[0]).toMatchObject({ name: 'Buiten', description: 'Fresh air', slug: category.slug });
    expect(dutch.tags[0]).toMatchObject({ name: 'Gezin', description: 'Voor iedereen' });
    expect(dutch.json_ld.location.name).toBe('Stadhuis');

    expect((await read(`/venues/${venue.id}`, 'nl')).body.venue).toBe('Stadhuis');
    expect((await read(`/venues/${venue.id}`)).body.venue).toBe('Town hall');
    expect((await read('/venues', 'nl', { search: 'stadhuis' })).body.venues.map((v: { id: number }) => v.id)).toEqual([
      venue.id,
    ]);
    expect((await read(`/organizers/${organizer.id}`, 'nl')).body.organizer).toBe('Vrienden van de rivier');
    expect((await read(`/categories/${category.id}`, 'nl')).body.name).toBe('Buiten');
    expect(
      (await read('/categories', 'nl', { search: 'buiten', hide_empty: false })).body.categories.map(
        (c: { id: number }) => c.id,
      ),
    ).toEqual([category.id]);
    expect((await read('/tags', 'nl', { hide_empty: false, include: tag.id })).body.tags[0].name).toBe('Gezin');
    expect((await read(`/tags/${tag.id}`)).body.name).toBe('Family');
  });

  it('does not treat a translated name as a duplicate of another term', async () => {
    const a = (await write('post', '/tags', { name: 'Music' })).body;
    await write('post', '/tags', { name: 'Muziek' }).expect(201);
    const res = await write('patch', `/tags/${a.id}`, { name: 'Muziek' }, 'nl');
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('Muziek');
  });

  it('sends Content-Language on every namespace response, errors included, and refuses unknown codes', async () => {
    expect((await read('/tags', 'ja')).headers['content-language']).toBe('ja');
    expect((await read('/events/999999', 'pt-br')).headers['content-language']).toBe('pt-br');
    const bad = await read('/tags', 'klingon');
    expect(bad.status).toBe(400);
    expect(bad.body.data.params).toEqual({ i18n_language: expect.any(String) });
  });
});
