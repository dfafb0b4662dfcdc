/**
 * A field added to the events' field table (test/support/subtitle-field.ts) and nowhere else, followed through the
 * service on every engine: writes store it, reads answer it (single and list), series occurrences copy it, a write in
 * another language is its translation, search finds it, and the `tec` importer copies it.
 */
import { addSubtitleColumn, withSubtitle } from '../support/subtitle-field';
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';
import { importTec } from '../../src/imports/tec';
import { readCalendar } from '../../src/imports/ics/parse';
import { eventWrite } from '../../src/imports/ics/mapping';
import type { IcsImportOptions } from '../../src/imports/ics/options';

type Json = Record<string, any>;

const WIDE = { start_date: '2000-01-01', end_date: '2100-01-01', per_page: 50 };

describe.each(ENGINES)('a field from the field table on %s', (engine) => {
  let service: TestService;
  const start = () => startService(engine, {}, undefined, { prepare: addSubtitleColumn, spec: withSubtitle });
  beforeAll(async () => {
    service = await start();
  });
  afterAll(() => service.close());

  const admin = () => service.as('administrator');
  const write = async (path: string, body: object, query: object = {}, to = service) => {
    const res = await http(to)
      .post(`${NS}${path}`)
      .query(query)
      .auth(...to.as('administrator'))
      .send(body);
    expect([200, 201]).toContain(res.status);
    return res.body as Json;
  };
  const read = async (path: string, query: object = {}) => {
    const res = await http(service)
      .get(`${NS}${path}`)
      .query(query)
      .auth(...admin());
    expect(res.status).toBe(200);
    return res.body as Json;
  };
  const titles = (body: Json) => (body.events as Json[]).map((event) => event.title);
  /** An event of two hours on `day`, with more fields when given. */
  const create = (title: string, subtitle: string, day: string, more: object = {}) =>
    write('/events', { title, subtitle, start_date: `${day} 10:00:00`, end_date: `${day} 12:00:00`, ...more });

  it('is stored by a create and answered by single reads and lists, after the plugin keys', async () => {
    const event = await create('Open-air cinema', 'Under the <b>stars</b>', '2027-08-01');
    expect(event.subtitle).toBe('Under the stars');
    const keys = Object.keys(event);
    expect(keys.indexOf('subtitle')).toBeGreaterThan(keys.indexOf('custom_fields'));
    expect((await read(`/events/${event.id}`)).subtitle).toBe('Under the stars');
    const listed = (await read('/events', WIDE)).events as Json[];
    expect(listed.find((e) => e.id === event.id)?.subtitle).toBe('Under the stars');
    const untouched = await write(`/events/${event.id}`, { title: 'Open-air cinema!' });
    expect(untouched.subtitle).toBe('Under the stars'); // omitted on update: unchanged
  });

  it('is copied to the occurrences of a recurring series, and follows a change of the series', async () => {
    const series = await create('Weekly quiz', 'Pub questions', '2027-07-06', {
      recurrence: { rrule: 'FREQ=WEEKLY;COUNT=3' },
    });
    const occurrences = async () => (await read(`/events/occurrences/${series.id}`, WIDE)).events as Json[];
    expect((await occurrences()).map((e) => e.subtitle)).toEqual(Array(3).fill('Pub questions'));
    await write(`/events/${series.id}`, { subtitle: 'Trivia night' }, { recurrence_scope: 'all' });
    expect((await occurrences()).map((e) => e.subtitle)).toEqual(Array(3).fill('Trivia night'));
  });

  it('written in another language is a translation, read back in that language', async () => {
    const event = await create('Harbour walk', 'Along the quays', '2027-09-01');
    await write(`/events/${event.id}`, { subtitle: 'Entlang der Kais' }, { i18n_language: 'de' });
    expect((await read(`/events/${event.id}`, { i18n_language: 'de' })).subtitle).toBe('Entlang der Kais');
    expect((await read(`/events/${event.id}`)).subtitle).toBe('Along the quays');
    expect(titles(await read('/events', { ...WIDE, search: 'Kais', i18n_language: 'de' }))).toEqual(['Harbour walk']);
  });

  it('is found by search', async () => {
    await create('Night market', 'Lanterns and noodles', '2027-10-01');
    expect(titles(await read('/events', { ...WIDE, search: 'noodles' }))).toEqual(['Night market']);
  });

  it('is copied by the tec importer', async () => {
    const target = await start();
    try {
      const source = await create('Jazz brunch', 'Eggs and bebop', '2027-11-07');
      const root = `http://127.0.0.1:${(service.server.address() as { port: number }).port}${NS}`;
      const admin = target.users.administrator;
      const summary = await importTec(target.database.db, target.config, root, {
        author: { id: admin.id, login: admin.login, role: 'administrator' },
        credentials: { user: service.users.administrator.login, password: service.users.administrator.password },
        fetch: { allowPrivate: true },
        language: 'en',
      });
      expect(summary.events.skipped).toEqual([]);
      const res = await http(target)
        .get(`${NS}/events/by-slug/${source.slug}`)
        .auth(...target.as('administrator'));
      expect(res.status).toBe(200);
      expect(res.body.subtitle).toBe('Eggs and bebop');
    } finally {
      await target.close();
    }
  });

  it('is read by the ics importer from the property the table names', () => {
    const text = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'BEGIN:VEVENT',
      'UID:subtitle@example.org',
      'DTSTART:20271201T100000Z',
      'DTEND:20271201T110000Z',
      'SUMMARY:Winter fair',
      'X-SUBTITLE:Mulled wine\\, candles',
      'END:VEVENT',
      'END:VCALENDAR',
    ].join('\r\n');
    const [{ vevent }] = readCalendar(text).events;
    const options = { source: 'test', author: { id: 1, login: 'a', role: 'administrator' }, language: 'en' };
    const body = eventWrite(
      vevent as NonNullable<typeof vevent>,
      readCalendar(text),
      options as IcsImportOptions,
      'UTC',
    );
    expect(body).toMatchObject({ title: 'Winter fair', subtitle: 'Mulled wine, candles' });
  });
});
