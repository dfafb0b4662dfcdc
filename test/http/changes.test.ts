/**
 * The change feed through HTTP, on every engine: every resource and action, the caller's view, paging,
 * bad and expired cursors (time moved with a manual clock), and `modified_after`/`modified_before` on the lists.
 */
import { ENGINES } from '../support/engines';
import { http, NS, startService, TEST_NOW, type TestService } from '../support/app';
import { clockStartingAt, manualClock, setClock } from '../../src/domain/clock';
import type { Role } from '../../src/users/roles';

const DAY = 86_400_000;

/** A loaded machine (several suites at once) runs these many requests slowly. */
const TIMEOUT = 120_000;

describe.each(ENGINES)('change feed on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine);
  });
  afterAll(() => service.close());
  afterEach(() => setClock(clockStartingAt(TEST_NOW)));

  const as = (role: Role) => ({
    get: (url: string) =>
      http(service)
        .get(url)
        .auth(...service.as(role)),
  });
  const write = (method: 'post' | 'patch' | 'delete', url: string, body?: object) =>
    http(service)
      [method](`${NS}${url}`)
      .auth(...service.as('administrator'))
      .send(body);
  const cursorNow = async () => {
    const res = await http(service).get(`${NS}/changes`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ changes: [], next_cursor: expect.any(String), has_more: false });
    return res.body.next_cursor as string;
  };
  const feed = async (cursor: string, role?: Role) => {
    const url = `${NS}/changes?cursor=${encodeURIComponent(cursor)}&limit=500`;
    const res = role ? await as(role).get(url) : await http(service).get(url);
    expect(res.status).toBe(200);
    return res.body as {
      changes: Array<{ resource: string; id: number; action: string; record?: any; cursor: string }>;
      next_cursor: string;
      has_more: boolean;
    };
  };
  const summary = (changes: Array<{ resource: string; id: number; action: string }>) =>
    changes.map((c) => `${c.resource}:${c.id}:${c.action}`);

  it(
    'reports the events a trashed venue or organizer, or a deleted category, leaves changed',
    async () => {
      const venue = (await write('post', '/venues', { venue: 'Knock-on hall', status: 'publish' })).body.id;
      const organizer = (await write('post', '/organizers', { organizer: 'Knock-on club', status: 'publish' })).body.id;
      const parent = (await write('post', '/categories', { name: 'Knock-on parent' })).body.id;
      const child = (await write('post', '/categories', { name: 'Knock-on child', parent })).body.id;
      const event = (
        await write('post', '/events', {
          title: 'Knock-on event',
          status: 'publish',
          start_date: '2027-07-02 10:00:00',
          end_date: '2027-07-02 11:00:00',
          venue,
          organizer: [organizer],
          categories: [parent],
        })
      ).body.id;
      const start = await cursorNow();
      expect((await write('delete', `/venues/${venue}`)).status).toBe(200);
      expect((await write('delete', `/organizers/${organizer}?force=true`)).status).toBe(200);
      expect((await write('delete', `/categories/${parent}?force=true`)).status).toBe(200);
      const { changes } = await feed(start);
      expect(summary(changes)).toEqual([
        `event:${event}:updated`,
        `venue:${venue}:deleted`,
        `event:${event}:updated`,
        `organizer:${organizer}:deleted`,
        `event:${event}:updated`,
        `category:${child}:updated`,
        `category:${parent}:deleted`,
      ]);
      expect(changes[changes.length - 3].record).toMatchObject({ id: event, venue: [], organizer: [], categories: [] });
    },
    TIMEOUT,
  );

  it(
    'reports every resource created, updated and deleted, in order, with records as the caller reads them',
    async () => {
      const start = await cursorNow();
      const category = (await write('post', '/categories', { name: 'Feed category' })).body.id;
      const tag = (await write('post', '/tags', { name: 'Feed tag' })).body.id;
      const venue = (await write('post', '/venues', { venue: 'Feed hall', status: 'publish' })).body.id;
      const organizer = (await write('post', '/organizers', { organizer: 'Feed club', status: 'publish' })).body.id;
      const event = (
        await write('post', '/events', {
          title: 'Feed event',
          status: 'publish',
          start_date: '2027-07-01 10:00:00',
          end_date: '2027-07-01 11:00:00',
          venue,
          organizer: [organizer],
          categories: [category],
          tags: [tag],
        })
      ).body.id;
      for (const [route, body] of [
        [`/categories/${category}`, { description: 'changed' }],
        [`/tags/${tag}`, { description: 'changed' }],
        [`/venues/${venue}`, { city: 'Utrecht' }],
        [`/organizers/${organizer}`, { phone: '+31 1' }],
        [`/events/${event}`, { title: 'Feed event, renamed' }],
      ] as const) {
        expect((await write('patch', route, body)).status).toBe(200);
      }
      const written = await feed(start);
      expect(summary(written.changes)).toEqual([
        `category:${category}:created`,
        `tag:${tag}:created`,
        `venue:${venue}:created`,
        `organizer:${organizer}:created`,
        `event:${event}:created`,
        `category:${category}:updated`,
        `tag:${tag}:updated`,
        `venue:${venue}:updated`,
        `organizer:${organizer}:updated`,
        `event:${event}:updated`,
      ]);
      const eventChange = written.changes.find((c) => c.resource === 'event');
      expect(eventChange?.record).toMatchObject({ id: event, title: 'Feed event, renamed', venue: { id: venue } });
      expect(written.changes.find((c) => c.resource === 'venue')?.record).toMatchObject({ id: venue, city: 'Utrecht' });
      expect(written.changes.find((c) => c.resource === 'tag')?.record).toMatchObject({
        id: tag,
        description: 'changed',
      });
      expect(written.has_more).toBe(false);

      const middle = written.next_cursor;
      for (const route of [
        `/events/${event}`,
        `/venues/${venue}?force=true`,
        `/organizers/${organizer}`,
        `/categories/${category}`,
        `/tags/${tag}`,
      ]) {
        expect((await write('delete', route)).status).toBe(200);
      }
      const deleted = await feed(middle, 'administrator');
      expect(summary(deleted.changes)).toEqual([
        `event:${event}:deleted`,
        `venue:${venue}:deleted`,
        `organizer:${organizer}:deleted`,
        `category:${category}:deleted`,
        `tag:${tag}:deleted`,
      ]);
      expect(deleted.changes.every((c) => !('record' in c))).toBe(true);
      expect((await feed(deleted.next_cursor)).changes).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'shows a draft to an editor and reports it deleted to an anonymous caller; translates records',
    async () => {
      const start = await cursorNow();
      const draft = await http(service)
        .post(`${NS}/events`)
        .auth(...service.as('editor'))
        .send({
          title: 'Secret plan',
          status: 'draft',
          start_date: '2027-07-02 10:00:00',
          end_date: '2027-07-02 11:00:00',
        });
      expect(draft.status).toBe(201);
      const tag = (await write('post', '/tags?i18n_language=en', { name: 'Garden' })).body.id;
      await http(service)
        .patch(`${NS}/tags/${tag}?i18n_language=fr`)
        .auth(...service.as('administrator'))
        .send({ name: 'Jardin' });
      const editor = await feed(start, 'editor');
      expect(editor.changes[0]).toMatchObject({
        resource: 'event',
        id: draft.body.id,
        action: 'created',
        record: { title: 'Secret plan', status: 'draft' },
      });
      const anonymous = await feed(start);
      expect(anonymous.changes[0]).toEqual({
        cursor: expect.any(String),
        resource: 'event',
        id: draft.body.id,
        action: 'deleted',
        modified_utc: expect.any(String),
      });
      const french = await http(service).get(`${NS}/changes?cursor=${encodeURIComponent(start)}&i18n_language=fr`);
      expect(french.body.changes.filter((c: any) => c.resource === 'tag').map((c: any) => c.record.name)).toEqual([
        'Jardin',
        'Jardin',
      ]);
    },
    TIMEOUT,
  );

  it(
    'pages with limit, and refuses bad cursors and limits',
    async () => {
      const start = await cursorNow();
      for (const name of ['Page one', 'Page two', 'Page three']) await write('post', '/tags', { name });
      const first = await http(service).get(`${NS}/changes?cursor=${encodeURIComponent(start)}&limit=2`);
      expect(first.body.changes.map((c: any) => c.record.name)).toEqual(['Page one', 'Page two']);
      expect(first.body.has_more).toBe(true);
      const second = await http(service).get(
        `${NS}/changes?cursor=${encodeURIComponent(first.body.next_cursor)}&limit=2`,
      );
      expect(second.body.changes.map((c: any) => c.record.name)).toEqual(['Page three']);
      expect(second.body.has_more).toBe(false);
      expect(first.body.changes[1].cursor).toBe(first.body.next_cursor);

      const bad = await http(service).get(`${NS}/changes?cursor=not-a-cursor`);
      expect(bad.status).toBe(400);
      expect(bad.body.data.params).toHaveProperty('cursor');
      for (const limit of ['0', '501', 'many']) {
        const res = await http(service).get(`${NS}/changes?limit=${limit}`);
        expect(res.status).toBe(400);
        expect(res.body.data.params).toHaveProperty('limit');
      }
    },
    TIMEOUT,
  );

  it(
    `answers 410 rest_cursor_expired once the changes after a cursor are older than the retention (30 days)`,
    async () => {
      const clock = manualClock('2027-08-01T00:00:00Z');
      setClock(clock);
      const old = await cursorNow();
      await write('post', '/tags', { name: 'Old news' });
      clock.advance(29 * DAY);
      expect((await feed(old)).changes.map((c) => c.record?.name)).toEqual(['Old news']);
      clock.advance(2 * DAY);
      const expired = await http(service).get(`${NS}/changes?cursor=${encodeURIComponent(old)}`);
      expect(expired.status).toBe(410);
      expect(expired.body).toMatchObject({ code: 'rest_cursor_expired', data: { status: 410 } });
      const fresh = await cursorNow();
      await write('post', '/tags', { name: 'Fresh news' });
      expect((await feed(fresh)).changes.map((c) => c.record?.name)).toEqual(['Fresh news']);
    },
    TIMEOUT,
  );

  it(
    'filters the lists of events, venues and organizers by modified_after and modified_before',
    async () => {
      const clock = manualClock('2027-09-01T00:00:00Z');
      setClock(clock);
      const made: Record<string, number[]> = { events: [], venues: [], organizers: [] };
      for (const day of [0, 10]) {
        const stamp = `${day}`;
        made.venues.push(
          (await write('post', '/venues', { venue: `Window venue ${stamp}`, status: 'publish' })).body.id,
        );
        made.organizers.push(
          (await write('post', '/organizers', { organizer: `Window organizer ${stamp}`, status: 'publish' })).body.id,
        );
        made.events.push(
          (
            await write('post', '/events', {
              title: `Window event ${stamp}`,
              status: 'publish',
              start_date: '2027-10-01 10:00:00',
              end_date: '2027-10-01 11:00:00',
            })
          ).body.id,
        );
        clock.advance(10 * DAY);
      }
      for (const plural of ['events', 'venues', 'organizers']) {
        const ids = async (query: string) => {
          const res = await http(service).get(`${NS}/${plural}?per_page=50&${query}`);
          expect(res.status).toBe(200);
          return (res.body[plural] as Array<{ id: number }>)
            .map((r) => r.id)
            .filter((id) => made[plural].includes(id))
            .sort((a, b) => a - b);
        };
        expect(await ids('modified_after=2027-09-05')).toEqual([made[plural][1]]);
        expect(await ids('modified_before=2027-09-05')).toEqual([made[plural][0]]);
        expect(await ids('modified_after=2027-08-30&modified_before=2027-09-20')).toEqual(made[plural]);
        const bad = await http(service).get(`${NS}/${plural}?modified_after=someday-maybe`);
        expect(bad.status).toBe(400);
        expect(bad.body.data.params).toHaveProperty('modified_after');
      }
    },
    TIMEOUT,
  );
});
