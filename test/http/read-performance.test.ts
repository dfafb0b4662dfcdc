/**
 * What the fast read paths must never give up, through HTTP on every engine: totals stay exact (short pages, memoised
 * counts) after writes by the service, straight into the database, or by another node; single reads' ETags (from
 * the data version) change with anything their answer shows, a linked venue included; geolocation follows venues'
 * coordinates as they are written (the SQLite R*Tree kept by triggers).
 */
import { DateTime } from 'luxon';
import { syncSearch } from '../../src/search/documents';
import { recordChanges } from '../../src/core/outbox';
import { ENGINES } from '../support/engines';
import { utcText } from '../support/kit';
import { http, NS, startService, TEST_NOW, type TestService } from '../support/app';
import { createDb } from '../../src/db/knex';
import { insertEvent } from '../support/fixtures';
import { countQueries } from '../support/query-count';

describe.each(ENGINES)('fast reads stay exact on %s', (engine) => {
  let service: TestService;
  const now = DateTime.fromISO(TEST_NOW, { zone: 'utc' });
  beforeAll(async () => {
    service = await startService(engine);
  });
  afterAll(() => service.close());

  const createEvent = async (title: string, fields: Record<string, unknown> = {}) => {
    const start = now.plus({ days: 10 });
    const res = await http(service)
      .post(`${NS}/events`)
      .auth(...service.as('editor'))
      .send({ title, start_date: utcText(start), end_date: utcText(start.plus({ hours: 2 })), ...fields });
    expect(res.status).toBe(201);
    return res.body as { id: number };
  };
  const totals = async (query: Record<string, unknown>) => {
    const res = await http(service).get(`${NS}/events`).query(query);
    expect(res.status).toBe(200);
    return {
      total: res.body.total,
      header: Number(res.headers['x-wp-total']),
      pages: res.body.total_pages,
      count: res.body.events.length,
    };
  };

  it('keeps totals exact on full and short pages, after writes through the API, the database and another node', async () => {
    const search = 'Totalcheck';
    for (let i = 0; i < 5; i++) await createEvent(`${search} ${i}`);
    expect(await totals({ search, per_page: 2 })).toEqual({ total: 5, header: 5, pages: 3, count: 2 });
    expect(await totals({ search, per_page: 2 })).toEqual({ total: 5, header: 5, pages: 3, count: 2 }); // memoised
    expect(await totals({ search, per_page: 2, page: 3 })).toEqual({ total: 5, header: 5, pages: 3, count: 1 }); // short page
    expect(await totals({ search, per_page: 10 })).toEqual({ total: 5, header: 5, pages: 1, count: 5 });

    await createEvent(`${search} 5`);
    expect(await totals({ search, per_page: 2 })).toEqual({ total: 6, header: 6, pages: 3, count: 2 });

    // a row written straight into the database (the CLI, a migration, an operator) moves the version too
    const id = await insertEvent(service.database.db);
    await service.database
      .db('posts')
      .where({ id })
      .update({ title: `${search} direct` });
    await service.database
      .db('events')
      .where({ post_id: id })
      .update({ start_utc: utcText(now.plus({ days: 3 })), end_utc: utcText(now.plus({ days: 3, hours: 1 })) });
    // what the write kernel does in the write's transaction: rebuild the documents, announce the record
    await service.database.db.transaction(async (trx) => {
      await syncSearch(trx, 'posts', [id]);
      await recordChanges(trx, 'event', [id], 'updated');
    });
    expect(await totals({ search, per_page: 2 })).toEqual({ total: 7, header: 7, pages: 4, count: 2 });

    // another node: its own connection pool on the same database, announcing the record as the kernel does
    const other =
      engine === 'postgres' ? createDb(service.database.url, { schema: service.database.schema }) : undefined;
    try {
      await (other ?? service.database.db).transaction(async (trx) => {
        if (other) await trx('posts').where({ id }).update({ status: 'draft' });
        await trx('events').where({ post_id: id }).update({ status: 'draft' });
        await recordChanges(trx, 'event', [id], 'updated');
      });
    } finally {
      await other?.destroy();
    }
    expect(await totals({ search, per_page: 2 })).toEqual({ total: 6, header: 6, pages: 3, count: 2 });
  });

  it('counts a category from its linked events or by walking the window, whichever is smaller, with one total', async () => {
    const category = (
      await http(service)
        .post(`${NS}/categories`)
        .auth(...service.as('editor'))
        .send({ name: 'Drivecheck' })
    ).body as { id: number };
    const on = (day: number, categories: number[] = []) =>
      createEvent(`Drive ${day}`, { start_date: `2031-06-${day} 10:00`, end_date: `2031-06-${day} 11:00`, categories });
    for (const day of [10, 11, 12]) await on(day, [category.id]);
    for (const day of [13, 14, 15, 16, 17, 18]) await on(day);
    const counted = async (start_date: string, end_date: string) => {
      const query = { categories: category.id, start_date, end_date, per_page: 1 };
      const { sql } = await countQueries(() => totals(query));
      return {
        ...(await totals(query)),
        // the category's linked events read as a set, intersected with the window's ids (D146)
        links: sql.some((text) =>
          /\(select [`"]r[`"]\.[`"]post_id[`"] as [`"]id[`"] from [`"]term_relationships/.test(text),
        ),
      };
    };
    // the month holds nine events, the category three: its linked events are read
    expect(await counted('2031-06-01', '2031-06-30')).toEqual({ total: 3, header: 3, pages: 3, count: 1, links: true });
    // two days hold two events: the window is walked
    expect(await counted('2031-06-11', '2031-06-12 23:59')).toEqual({
      total: 2,
      header: 2,
      pages: 2,
      count: 1,
      links: false,
    });
  });

  it('changes a single read’s ETag when a linked venue changes, and answers 304 only while nothing did', async () => {
    const venue = (
      await http(service)
        .post(`${NS}/venues`)
        .auth(...service.as('editor'))
        .send({ venue: 'Etag Hall' })
    ).body;
    const event = await createEvent('Etag event', { venue: venue.id });
    const first = await http(service).get(`${NS}/events/${event.id}`);
    expect(first.headers.etag).toMatch(/^"\d+-\d+\.v[\w-]{20,}"$/); // the record's version, then the data's state
    expect((await http(service).get(`${NS}/events/${event.id}`).set('If-None-Match', first.headers.etag)).status).toBe(
      304,
    );

    expect(
      (
        await http(service)
          .post(`${NS}/venues/${venue.id}`)
          .auth(...service.as('editor'))
          .send({ venue: 'Renamed Hall' })
      ).status,
    ).toBe(200);
    const after = await http(service).get(`${NS}/events/${event.id}`).set('If-None-Match', first.headers.etag);
    expect(after.status).toBe(200);
    expect(after.body.venue.venue).toBe('Renamed Hall');
    expect(after.headers.etag).not.toBe(first.headers.etag);
    // the tag belongs to one URL, caller and language
    expect(
      (
        await http(service)
          .get(`${NS}/events/${event.id}`)
          .query({ i18n_language: 'nl' })
          .set('If-None-Match', after.headers.etag)
      ).status,
    ).toBe(200);
    expect(
      (
        await http(service)
          .get(`${NS}/events/${event.id}`)
          .auth(...service.as('editor'))
          .set('If-None-Match', after.headers.etag)
      ).status,
    ).toBe(200);
  });

  it('finds events by the venues near a point as venues are placed, moved and removed', async () => {
    const near = (lat: number, lng: number) =>
      http(service)
        .get(`${NS}/events`)
        .query({ geoloc_lat: lat, geoloc_lng: lng, geoloc_radius: 5, per_page: 50 })
        .then((r) => r.body.events.map((e: { title: string }) => e.title));
    const venue = (
      await http(service)
        .post(`${NS}/venues`)
        .auth(...service.as('editor'))
        .send({ venue: 'Moving venue', geo_lat: 45.4642, geo_lng: 9.19, status: 'publish' })
    ).body;
    await createEvent('Near Milan', { venue: venue.id });
    expect(await near(45.46, 9.19)).toEqual(['Near Milan']);

    await http(service)
      .post(`${NS}/venues/${venue.id}`)
      .auth(...service.as('editor'))
      .send({ geo_lat: 41.9028, geo_lng: 12.4964 });
    expect(await near(45.46, 9.19)).toEqual([]);
    expect(await near(41.9, 12.5)).toEqual(['Near Milan']);

    await http(service)
      .post(`${NS}/venues/${venue.id}`)
      .auth(...service.as('editor'))
      .send({ geo_lat: '', geo_lng: '' });
    expect(await near(41.9, 12.5)).toEqual([]);

    await http(service)
      .post(`${NS}/venues/${venue.id}`)
      .auth(...service.as('editor'))
      .send({ geo_lat: 41.9028, geo_lng: 12.4964 });
    expect(await near(41.9, 12.5)).toEqual(['Near Milan']);
    expect(
      (
        await http(service)
          .delete(`${NS}/venues/${venue.id}`)
          .auth(...service.as('editor'))
          .query({ force: true })
      ).status,
    ).toBe(200);
    expect(await near(41.9, 12.5)).toEqual([]);
  });
});
