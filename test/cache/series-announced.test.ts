/**
 * A scoped delete in a series changes what the events left in it show (`recurrence`: the excluded date, the rule
 * that now ends): each of them answers the change at once with the representation cache warm, and the change feed
 * and the webhooks' outbox name each of them, as they name the occurrences a split moves.
 */
import request from 'supertest';
import { ENGINES } from '../support/engines';
import { NS, startService, type TestService } from '../support/app';
import { read, startNode, type Node } from './support';

describe.each(ENGINES)('a scoped delete in a series, announced, on %s', (engine) => {
  let service: TestService;
  let cached: Node;
  let reference: Node;
  let hook: number;
  beforeAll(async () => {
    service = await startService(engine, { SITE_TIMEZONE: 'UTC', WEBHOOK_ALLOW_PRIVATE: '1' });
    cached = await startNode(service, { renderCache: true });
    reference = await startNode(service, { renderCache: false });
    // a subscriber no one delivers to here: what matters is what the write queued for it
    const res = await request(cached.server)
      .post(`${NS}/webhooks`)
      .auth(...admin())
      .send({ url: 'http://127.0.0.1:9/hook', events: ['event.updated'] });
    expect(res.status).toBe(201);
    hook = res.body.id;
  });
  afterAll(async () => {
    await cached.close();
    await reference.close();
    await service.close();
  });

  const admin = () => service.as('administrator');
  let n = 0;
  /** A published weekly series of five, through the caching node: its events' ids in order. */
  const weekly = async () => {
    n += 1;
    const res = await request(cached.server)
      .post(`${NS}/events`)
      .auth(...admin())
      .send({
        title: `Rehearsal ${n}`,
        status: 'publish',
        start_date: `2031-0${n}-03 18:00:00`,
        end_date: `2031-0${n}-03 19:00:00`,
        recurrence: { rrule: 'FREQ=WEEKLY;COUNT=5' },
      });
    expect(res.status).toBe(201);
    const list = await read(
      reference,
      `${NS}/events/occurrences/${res.body.id}?start_date=2031-01-01&end_date=2031-12-31&per_page=50`,
    );
    return (JSON.parse(list.body).events as Array<{ id: number }>).map((e) => e.id);
  };
  /** What `id` answers on the caching node, read twice (the second from the cache), to anonymous and an editor. */
  const answers = async (id: number) => {
    const seen = [];
    for (const auth of [undefined, service.as('editor')]) {
      for (let i = 0; i < 2; i++) seen.push(await read(cached, `${NS}/events/${id}`, auth));
      expect(seen[seen.length - 1]).toEqual(await read(reference, `${NS}/events/${id}`, auth));
    }
    return seen.map((answer) => JSON.parse(answer.body).recurrence);
  };
  const cursorNow = async () => (await request(cached.server).get(`${NS}/changes`)).body.next_cursor as string;
  const feedSince = async (cursor: string) => {
    const res = await request(cached.server)
      .get(`${NS}/changes`)
      .auth(...admin())
      .query({ cursor, limit: 500 });
    expect(res.status).toBe(200);
    return (res.body.changes as Array<{ id: number; action: string }>).map((c) => `${c.id}:${c.action}`);
  };
  /** The events the subscriber was queued an `event.updated` message for, since delivery `after`. */
  const queuedSince = async (after: number) => {
    const rows = await service.database
      .db('webhook_deliveries')
      .where({ webhook_id: hook, type: 'event.updated' })
      .where('id', '>', after)
      .select('record_id');
    return rows.map((row: { record_id: unknown }) => Number(row.record_id)).sort((a: number, b: number) => a - b);
  };
  const lastDelivery = async () =>
    Number((await service.database.db('webhook_deliveries').max({ id: 'id' }).first())?.id ?? 0);
  const remove = async (id: number, scope: string) => {
    const res = await request(cached.server)
      .delete(`${NS}/events/${id}`)
      .auth(...admin())
      .query({ recurrence_scope: scope });
    expect(res.status).toBe(200);
  };

  it('this: every event left shows the excluded date; the feed and the webhooks name each', async () => {
    const ids = await weekly();
    for (const id of ids) await answers(id); // warm
    const cursor = await cursorNow();
    const delivered = await lastDelivery();
    await remove(ids[2], 'this');
    const left = ids.filter((id) => id !== ids[2]);
    for (const id of left) {
      for (const recurrence of await answers(id)) expect(recurrence.exdates).toEqual(['2031-01-17 18:00:00']);
    }
    const feed = await feedSince(cursor);
    expect(feed).toContain(`${ids[2]}:deleted`);
    for (const id of left) expect(feed).toContain(`${id}:updated`);
    expect(feed).toHaveLength(ids.length); // each event once
    expect(await queuedSince(delivered)).toEqual(left);
  });

  it('following: every event left shows the rule that now ends; the feed and the webhooks name each', async () => {
    const ids = await weekly();
    for (const id of ids) await answers(id);
    const cursor = await cursorNow();
    const delivered = await lastDelivery();
    await remove(ids[3], 'following');
    for (const id of ids.slice(0, 3)) {
      for (const recurrence of await answers(id)) expect(recurrence.rrule).toBe('FREQ=WEEKLY;UNTIL=20310224T175959Z');
    }
    const feed = await feedSince(cursor);
    expect(feed.sort()).toEqual(
      [...ids.slice(0, 3).map((id) => `${id}:updated`), ...ids.slice(3).map((id) => `${id}:deleted`)].sort(),
    );
    expect(await queuedSince(delivered)).toEqual(ids.slice(0, 3));
  });

  it('a split moves the occurrences from the one changed on: each is named once', async () => {
    const ids = await weekly();
    for (const id of ids) await answers(id);
    const cursor = await cursorNow();
    const res = await request(cached.server)
      .post(`${NS}/events/${ids[2]}`)
      .auth(...admin())
      .query({ recurrence_scope: 'following' })
      .send({ title: 'Spring term' });
    expect(res.status).toBe(200);
    for (const id of ids.slice(0, 2)) {
      for (const recurrence of await answers(id)) expect(recurrence.rrule).toMatch(/UNTIL=20310317T175959Z$/);
    }
    for (const id of ids.slice(2)) {
      for (const recurrence of await answers(id)) expect(recurrence).toMatchObject({ series_id: ids[2] });
    }
    expect((await feedSince(cursor)).sort()).toEqual(ids.map((id) => `${id}:updated`).sort());
  });
});
