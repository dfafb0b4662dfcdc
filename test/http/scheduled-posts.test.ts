/**
 * Scheduled posts go live at their date, through HTTP on every engine: an event (and a venue) stored as `future`
 * is hidden from anonymous callers until the service clock reaches its date and the publishing job has run, then
 * it is public, listed, counted in its category, in the change feed once, delivered once to a webhook and audited
 * as the system's. The job is stepped by hand and the clock moved by hand: nothing waits for a date.
 */
import { DateTime } from 'luxon';
import { ENGINES } from '../support/engines';
import { receiver, utcText, type Receiver } from '../support/kit';
import { http, NS, startService, TEST_NOW, type TestService } from '../support/app';
import { clockStartingAt, manualClock, now, setClock } from '../../src/domain/clock';
import { startDispatcher, type Dispatcher } from '../../src/integrations/webhooks/dispatcher';
import { startPublisher, waitFor, FALLBACK_MS, RETRY_MS, type Publisher } from '../../src/publishing/job';
import { createLogger } from '../../src/logger';
import type { AppContext } from '../../src/http/context';

const ENV = { WEBHOOK_ALLOW_PRIVATE: '1' };
/** A loaded machine (several suites at once) runs these requests slowly. */
const TIMEOUT = 60_000;

describe.each(ENGINES)('scheduled posts on %s', (engine) => {
  let service: TestService;
  let publisher: Publisher;
  let dispatcher: Dispatcher;
  let hook: Receiver;
  const clock = manualClock(TEST_NOW);
  beforeAll(async () => {
    service = await startService(engine, ENV);
    setClock(clock);
    const context = service.app.locals.context as AppContext;
    publisher = startPublisher(context.db, createLogger('silent'), { loop: false });
    dispatcher = startDispatcher(context, createLogger('silent'), { loop: false });
    hook = await receiver();
  });
  beforeEach(() => {
    clock.set(new Date(Math.ceil(now().getTime() / 1000) * 1000 + 1000)); // whole seconds, as stored
    hook.received.length = 0;
  });
  afterAll(async () => {
    await publisher.stop();
    await dispatcher.stop();
    setClock(clockStartingAt(TEST_NOW));
    await hook.close();
    await service.close();
  });

  const admin = (method: 'get' | 'post', url: string, body?: object) =>
    http(service)
      [method](`${NS}${url}`)
      .auth(...service.as('administrator'))
      .send(body);
  const anonymous = (url: string) => http(service).get(`${NS}${url}`);
  const inAMinute = () => utcText(DateTime.fromJSDate(now()).plus({ minutes: 1 }));
  const feedOf = async (cursor: string, id: number) =>
    ((await admin('get', `/changes?cursor=${encodeURIComponent(cursor)}&limit=500`)).body.changes as any[])
      .filter((change) => change.id === id)
      .map((change) => `${change.resource}:${change.action}`);

  it(
    'publishes a scheduled event at its date: public, listed, counted, announced and delivered once',
    async () => {
      await admin('post', '/webhooks', { url: hook.url, events: ['event.updated'] }).expect(201);
      const category = (await admin('post', '/categories', { name: 'Scheduled concerts' })).body.id as number;
      const created = await admin('post', '/events', {
        title: 'Scheduled concert',
        status: 'future',
        date_utc: inAMinute(),
        start_date: '2027-09-01 20:00:00',
        end_date: '2027-09-01 22:00:00',
        categories: [category],
      });
      expect(created.body.status).toBe('future');
      const id = created.body.id as number;
      const cursor = (await anonymous('/changes')).body.next_cursor as string;
      expect((await admin('get', `/events/${id}`)).body.status).toBe('future'); // its answer is cached
      const listed = async () => {
        const res = await anonymous('/events?start_date=2027-09-01&end_date=2027-09-02');
        return { total: res.headers['x-wp-total'], ids: (res.body.events ?? []).map((e: { id: number }) => e.id) };
      };
      const count = async () => (await anonymous(`/categories/${category}`)).body.count;

      expect((await anonymous(`/events/${id}`)).status).toBe(403);
      expect(await listed()).toEqual({ total: '0', ids: [] });
      expect(await count()).toBe(0);
      expect(await publisher.run()).toBe(0); // not yet due
      clock.advance(59_000);
      expect(await publisher.run()).toBe(0);
      expect((await anonymous(`/events/${id}`)).status).toBe(403);

      clock.advance(1_000);
      expect(await publisher.run()).toBe(1);
      expect(await publisher.run()).toBe(0); // once
      const read = await anonymous(`/events/${id}`);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ id, status: 'publish', date_utc: created.body.date_utc });
      expect(read.body.modified).toBe(created.body.modified); // as WordPress: publishing is not an edit
      expect((await admin('get', `/events/${id}`)).body.status).toBe('publish');
      expect(await listed()).toEqual({ total: '1', ids: [id] });
      expect(await count()).toBe(1);
      expect(await feedOf(cursor, id)).toEqual(['event:updated']);

      while ((await dispatcher.tick()) > 0);
      const messages = hook.received.map((m) => JSON.parse(m.body));
      expect(messages).toHaveLength(1);
      expect(messages[0]).toMatchObject({ type: 'event.updated', data: { id, record: { id, status: 'publish' } } });

      const trail = (await admin('get', `/audit?resource=event&id=${id}`)).body.audit;
      expect(trail[0]).toMatchObject({
        via: 'system',
        user: null,
        login: null,
        operation: 'update',
        changes: { status: { old: 'future', new: 'publish' } },
      });
    },
    TIMEOUT,
  );

  it(
    'publishes scheduled venues and organizers too, and leaves rescheduled and unpublished posts alone',
    async () => {
      const venue = (await admin('post', '/venues', { venue: 'Scheduled hall', status: 'future', date: inAMinute() }))
        .body;
      const organizer = (
        await admin('post', '/organizers', { organizer: 'Scheduled band', status: 'future', date: inAMinute() })
      ).body;
      const later = (
        await admin('post', '/organizers', { organizer: 'Rescheduled band', status: 'future', date: inAMinute() })
      ).body;
      const drafted = (
        await admin('post', '/organizers', { organizer: 'Withdrawn band', status: 'future', date: inAMinute() })
      ).body;
      expect([venue.status, organizer.status, later.status, drafted.status]).toEqual(Array(4).fill('future'));
      const tomorrow = utcText(DateTime.fromJSDate(now()).plus({ days: 1 }));
      await admin('post', `/organizers/${later.id}`, { date_utc: tomorrow }).expect(200);
      await admin('post', `/organizers/${drafted.id}`, { status: 'draft' }).expect(200);
      expect((await anonymous(`/venues/${venue.id}`)).status).toBe(403);

      clock.advance(60_000);
      expect(await publisher.run()).toBe(2);
      expect((await anonymous(`/venues/${venue.id}`)).body.status).toBe('publish');
      expect((await anonymous(`/organizers/${organizer.id}`)).body.status).toBe('publish');
      expect((await admin('get', `/organizers/${later.id}`)).body.status).toBe('future');
      expect((await admin('get', `/organizers/${drafted.id}`)).body.status).toBe('draft');
      expect(await publisher.run()).toBe(0);
      await admin('post', `/organizers/${later.id}`, { status: 'draft' }).expect(200); // out of the next tests' way
    },
    TIMEOUT,
  );

  it(
    'publishes a scheduled series with its occurrences',
    async () => {
      const series = await admin('post', '/events', {
        title: 'Scheduled festival',
        status: 'future',
        date_utc: inAMinute(),
        start_date: '2027-11-01 18:00:00',
        end_date: '2027-11-01 20:00:00',
        recurrence: { rrule: 'FREQ=DAILY;COUNT=3', rdates: [], exdates: [] },
      });
      expect(series.status).toBe(201);
      const window = '/events?start_date=2027-11-01&end_date=2027-11-05';
      expect((await anonymous(window)).headers['x-wp-total']).toBe('0');
      clock.advance(60_000);
      expect(await publisher.run()).toBe(3);
      const listed = await anonymous(window);
      expect(listed.headers['x-wp-total']).toBe('3');
      expect(listed.body.events.map((e: { status: string }) => e.status)).toEqual(Array(3).fill('publish'));
    },
    TIMEOUT,
  );

  it(
    'arms its timer for the date a write on this node schedules, without waiting for that date',
    async () => {
      const job = startPublisher(service.database.db, createLogger('silent'));
      try {
        await job.settled();
        const date = utcText(DateTime.fromJSDate(now()).plus({ seconds: 90 }));
        await admin('post', '/events', {
          title: 'Armed for',
          status: 'future',
          date_utc: date,
          start_date: '2027-09-03 20:00:00',
          end_date: '2027-09-03 22:00:00',
        }).expect(201);
        await job.settled(); // the pass the write asked for
        expect(job.nextDate()).toBe(Date.parse(`${date.replace(' ', 'T')}Z`));
      } finally {
        await job.stop();
      }
    },
    TIMEOUT,
  );
});

describe('the publishing timer', () => {
  it('waits until the next date, at most a minute, and a moment when something due was left', () => {
    expect(waitFor(undefined, 0)).toBe(FALLBACK_MS);
    expect(waitFor(1_500, 1_000)).toBe(500);
    expect(waitFor(10 * FALLBACK_MS, 0)).toBe(FALLBACK_MS);
    expect(waitFor(1_000, 1_000)).toBe(RETRY_MS);
  });
});
