/**
 * Recurring series through HTTP, on every engine: creating with every rule part, the scopes of updates
 * and deletes, detached occurrences, `following` splits, `recurrence: null`, `collapse_recurring`,
 * `/events/occurrences/{id}`, `post_parent`, the horizon of open-ended rules and the limits.
 */
import { ENGINES } from '../support/engines';
import { http, NS, startService, TEST_NOW, type TestService } from '../support/app';
import { insertOrganizer, insertVenue } from '../support/fixtures';
import { clockStartingAt, manualClock, setClock } from '../../src/domain/clock';
import { extendHorizons } from '../../src/resources/series/horizon';
import fixture from '../unit/fixtures/series-rules.json';

const base = `${NS}/events`;
const WIDE = { start_date: '2000-01-01', end_date: '2100-01-01', per_page: 50 };
/** Fewer statements than occurrences: a series is written in batches (about 40 statements for 104 today). */
const STATEMENTS_BOUND = 104;

interface FixtureCase {
  name: string;
  rrule: string;
  start: string;
  zone: string;
  all_day?: boolean;
  horizon_utc?: string;
  rdates?: string[];
  exdates?: string[];
  expected: Array<{ local: string }>;
}

describe.each(ENGINES)('recurring series on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine, { SITE_TIMEZONE: 'UTC' });
  });
  afterAll(() => service.close());

  let n = 0;
  const admin = () => service.as('administrator');
  const create = (body: object) =>
    http(service)
      .post(base)
      .auth(...admin())
      .send({ title: `Series ${++n}`, ...body });
  const createSeries = async (body: object) => {
    const res = await create(body);
    expect(res.status).toBe(201);
    return res.body;
  };
  const occurrences = async (id: number, query: object = WIDE) => {
    const res = await http(service)
      .get(`${base}/occurrences/${id}`)
      .auth(...admin())
      .query(query);
    expect(res.status).toBe(200);
    return res.body.events as Array<Record<string, any>>;
  };
  const update = (id: number, body: object, scope?: string) =>
    http(service)
      .post(`${base}/${id}`)
      .auth(...admin())
      .query(scope ? { recurrence_scope: scope } : {})
      .send(body);
  const remove = (id: number, scope?: string, force = false) =>
    http(service)
      .delete(`${base}/${id}`)
      .auth(...admin())
      .query({ ...(scope ? { recurrence_scope: scope } : {}), ...(force ? { force: true } : {}) });
  const get = async (id: number) =>
    (
      await http(service)
        .get(`${base}/${id}`)
        .auth(...admin())
    ).body;

  describe('create', () => {
    it('materialises the issue example as events of their own with the recurrence field, slugs and post_parent', async () => {
      const event = await createSeries({
        start_date: '2027-07-06 18:00:00',
        end_date: '2027-07-06 19:30:00',
        timezone: 'Europe/Berlin',
        recurrence: {
          rrule: 'FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20270731',
          rdates: ['2027-08-04 18:00:00'],
          exdates: ['2027-07-13 18:00:00'],
        },
      });
      expect(event.recurrence).toEqual({
        rrule: 'FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20270731',
        rdates: ['2027-08-04 18:00:00'],
        exdates: ['2027-07-13 18:00:00'],
        series_id: event.id,
        detached: false,
      });
      const list = await occurrences(event.id);
      // Tuesdays and Thursdays of July from the 6th, without the 13th, plus 4 August
      expect(list.map((e) => e.start_date)).toEqual([
        '2027-07-06 18:00:00',
        '2027-07-08 18:00:00',
        '2027-07-15 18:00:00',
        '2027-07-20 18:00:00',
        '2027-07-22 18:00:00',
        '2027-07-27 18:00:00',
        '2027-07-29 18:00:00',
        '2027-08-04 18:00:00',
      ]);
      expect(list.every((e) => e.end_date.endsWith('19:30:00') && e.timezone === 'Europe/Berlin')).toBe(true);
      expect(new Set(list.map((e) => e.id)).size).toBe(8);
      expect(list[1].slug).toBe(`${event.slug}-2027-07-08`);
      expect(list[1].recurrence).toMatchObject({ series_id: event.id, detached: false });
      expect(list[1].title).toBe(event.title);
      const children = await http(service)
        .get(base)
        .auth(...admin())
        .query({ post_parent: event.id, ...WIDE });
      expect(children.body.events.map((e: { id: number }) => e.id)).toEqual(list.slice(1).map((e) => e.id));
      // an occurrence lists its whole series too
      expect((await occurrences(list[3].id)).map((e) => e.id)).toEqual(list.map((e) => e.id));
    });

    const cases = (fixture as { cases: FixtureCase[] }).cases.filter(
      (c) => !c.horizon_utc && c.expected.length <= 50 && c.expected[0]?.local === c.start,
    );
    it('goes through every rule part and both UNTIL forms', () => {
      for (const part of [
        'INTERVAL',
        'COUNT',
        'UNTIL',
        'BYDAY',
        'BYMONTHDAY',
        'BYMONTH',
        'BYYEARDAY',
        'BYWEEKNO',
        'BYSETPOS',
        'WKST',
      ]) {
        expect(cases.some((c) => c.rrule.includes(`${part}=`))).toBe(true);
      }
      expect(
        cases.some((c) => /UNTIL=\d{8}T\d{6}Z/.test(c.rrule)) && cases.some((c) => /UNTIL=\d{8}(;|$)/.test(c.rrule)),
      ).toBe(true);
    });
    it.each(cases.map((c) => [c.name, c] as const))('creates %s as dateutil expands it', async (_name, c) => {
      const event = await createSeries({
        start_date: c.start,
        end_date: c.start,
        timezone: c.zone,
        all_day: Boolean(c.all_day),
        recurrence: { rrule: c.rrule, rdates: c.rdates ?? [], exdates: c.exdates ?? [] },
      });
      expect((await occurrences(event.id)).map((e) => e.start_date)).toEqual(c.expected.map((o) => o.local));
    });

    it('creates a weekly series of 104 occurrences in a bounded number of statements, not one round per occurrence', async () => {
      // a count, not a duration: the machine may be loaded; what made it slow was a statement per occurrence field
      const statements: string[] = [];
      const listen = ({ sql }: { sql: string }) => {
        statements.push(sql);
      };
      service.database.db.on('query', listen);
      let event: { id: number };
      try {
        event = await createSeries({
          start_date: '2027-07-05 10:00:00',
          end_date: '2027-07-05 11:00:00',
          recurrence: { rrule: 'FREQ=WEEKLY;COUNT=104' },
        });
      } finally {
        service.database.db.off('query', listen);
      }
      const res = await http(service)
        .get(base)
        .auth(...admin())
        .query({ post_parent: event.id, ...WIDE });
      expect(res.body.total).toBe(103);
      console.log(`[series] ${engine}: weekly series of 104 created in ${statements.length} statements`);
      expect(statements.length).toBeLessThan(STATEMENTS_BOUND);
    });

    it("gives occurrences the series event's venue, organizers, categories, tags, status and password", async () => {
      const venue = await insertVenue(service.database.db, 'Hall');
      const organizer = await insertOrganizer(service.database.db, 'Club');
      const event = await createSeries({
        start_date: '2027-08-02 10:00:00',
        end_date: '2027-08-02 11:00:00',
        venue,
        organizer: [organizer],
        categories: ['Classes'],
        tags: ['weekly'],
        status: 'draft',
        password: 'sesame',
        recurrence: { rrule: 'FREQ=WEEKLY;COUNT=3' },
      });
      const [, second] = await occurrences(event.id);
      expect(second).toMatchObject({ status: 'draft', venue: { id: venue }, organizer: [{ id: organizer }] });
      expect(second.categories.map((c: { name: string }) => c.name)).toEqual(['Classes']);
      expect(second.tags.map((c: { name: string }) => c.name)).toEqual(['weekly']);
      const anonymous = await http(service).get(`${base}/${second.id}`);
      expect(anonymous.status).toBe(403);
    });

    it('puts the time in the slug when a series has several occurrences a day', async () => {
      const event = await createSeries({
        start_date: '2027-08-02 10:00:00',
        end_date: '2027-08-02 11:00:00',
        recurrence: { rrule: 'FREQ=DAILY;COUNT=2', rdates: ['2027-08-03 15:00:00'] },
      });
      expect((await occurrences(event.id)).map((e) => e.slug)).toEqual([
        event.slug,
        `${event.slug}-2027-08-03-1000`,
        `${event.slug}-2027-08-03-1500`,
      ]);
    });

    it.each([
      ['FREQ=HOURLY;COUNT=3', /HOURLY/],
      ['FREQ=WEEKLY;BYHOUR=9', /BYHOUR/],
      ['FREQ=WEEKLY;BYDAY=FUNDAY', /BYDAY/],
      ['FREQ=MONTHLY;BYMONTHDAY=32', /BYMONTHDAY/],
      ['FREQ=DAILY;COUNT=1001', /1000/],
      ['FREQ=DAILY;UNTIL=20330101', /1000/],
      ['FREQ=DAILY;COUNT=2;UNTIL=20280101', /COUNT/],
    ])('answers 400 naming recurrence for %s', async (rrule, reason) => {
      const before = (
        await http(service)
          .get(base)
          .auth(...admin())
          .query(WIDE)
      ).body.total;
      const res = await create({
        start_date: '2027-08-02 10:00:00',
        end_date: '2027-08-02 11:00:00',
        recurrence: { rrule },
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('rest_invalid_param');
      expect(res.body.data.params.recurrence).toMatch(reason);
      expect(
        (
          await http(service)
            .get(base)
            .auth(...admin())
            .query(WIDE)
        ).body.total,
      ).toBe(before); // nothing written
    });

    it('answers 400 naming recurrence for an rdate that is not a date', async () => {
      const res = await create({
        start_date: '2027-08-02 10:00:00',
        end_date: '2027-08-02 11:00:00',
        recurrence: { rrule: 'FREQ=DAILY;COUNT=2', rdates: ['soon'] },
      });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.data.params)).toEqual(['recurrence']);
    });

    it('accepts exactly 1000 occurrences', async () => {
      const event = await createSeries({
        start_date: '2027-08-02 10:00:00',
        end_date: '2027-08-02 11:00:00',
        recurrence: { rrule: 'FREQ=DAILY;COUNT=1000' },
      });
      const res = await http(service)
        .get(`${base}/occurrences/${event.id}`)
        .auth(...admin())
        .query({ ...WIDE, per_page: 1 });
      expect(res.body.total).toBe(1000);
    });
  });

  describe('update scopes', () => {
    const weekly = () =>
      createSeries({
        start_date: '2027-09-06 18:00:00',
        end_date: '2027-09-06 19:00:00',
        recurrence: { rrule: 'FREQ=WEEKLY;COUNT=6' },
      });

    it('this (the default on a later occurrence) detaches it, and it keeps its change when the series is edited', async () => {
      const event = await weekly();
      const list = await occurrences(event.id);
      const res = await update(list[2].id, {
        title: 'Moved to the annex',
        start_date: '2027-09-20 20:00:00',
        end_date: '2027-09-20 21:00:00',
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: list[2].id,
        title: 'Moved to the annex',
        recurrence: { series_id: event.id, detached: true },
      });
      expect((await get(list[3].id)).title).toBe(event.title);

      const all = await update(event.id, {
        title: 'Renamed series',
        start_date: '2027-09-06 17:00:00',
        end_date: '2027-09-06 18:00:00',
      });
      expect(all.status).toBe(200);
      const after = await occurrences(event.id);
      expect(after.map((e) => e.id)).toEqual(list.map((e) => e.id)); // ids kept
      expect(after.map((e) => e.title)).toEqual([
        'Renamed series',
        'Renamed series',
        'Moved to the annex',
        'Renamed series',
        'Renamed series',
        'Renamed series',
      ]);
      expect(after.map((e) => e.start_date.slice(11))).toEqual([
        '17:00:00',
        '17:00:00',
        '20:00:00',
        '17:00:00',
        '17:00:00',
        '17:00:00',
      ]);

      // a longer series event makes every attached occurrence longer
      await update(event.id, { end_date: '2027-09-06 19:30:00' });
      expect((await occurrences(event.id)).map((e) => e.end_date.slice(11))).toEqual([
        '19:30:00',
        '19:30:00',
        '21:00:00',
        '19:30:00',
        '19:30:00',
        '19:30:00',
      ]);
    });

    it('all (the default on the series event; by query or body on an occurrence) regenerates from a new rule', async () => {
      const event = await weekly();
      const list = await occurrences(event.id);
      const res = await update(list[1].id, {
        recurrence_scope: 'all',
        recurrence: { rrule: 'FREQ=WEEKLY;COUNT=3' },
        title: 'Shorter',
      });
      expect(res.status).toBe(200);
      const after = await occurrences(event.id);
      expect(after.map((e) => e.id)).toEqual(list.slice(0, 3).map((e) => e.id));
      expect(after.every((e) => e.title === 'Shorter' && e.recurrence.rrule === 'FREQ=WEEKLY;COUNT=3')).toBe(true);
      expect(
        (
          await http(service)
            .get(`${base}/${list[4].id}`)
            .auth(...admin())
        ).status,
      ).toBe(404);
    });

    it('following splits the series: the old rule ends before, a new series starts with the change', async () => {
      const event = await weekly();
      const list = await occurrences(event.id);
      const res = await update(list[3].id, { title: 'Autumn term' }, 'following');
      expect(res.status).toBe(200);
      expect(res.body.recurrence).toMatchObject({
        series_id: list[3].id,
        rrule: 'FREQ=WEEKLY;COUNT=3',
        detached: false,
      });
      const old = await occurrences(event.id);
      expect(old.map((e) => e.id)).toEqual(list.slice(0, 3).map((e) => e.id));
      expect(old[0].recurrence.rrule).toBe('FREQ=WEEKLY;UNTIL=20270927T175959Z');
      const next = await occurrences(list[3].id);
      expect(next.map((e) => e.id)).toEqual(list.slice(3).map((e) => e.id));
      expect(next.map((e) => e.title)).toEqual(['Autumn term', 'Autumn term', 'Autumn term']);
      const children = await http(service)
        .get(base)
        .auth(...admin())
        .query({ post_parent: list[3].id, ...WIDE });
      expect(children.body.events.map((e: { id: number }) => e.id)).toEqual(list.slice(4).map((e) => e.id));
      expect((await get(list[3].id)).recurrence.series_id).toBe(list[3].id);
    });

    it('refuses this on the series event, a rule change on one occurrence alone, and an unknown scope', async () => {
      const event = await weekly();
      const [, second] = await occurrences(event.id);
      const alone = await update(second.id, { recurrence: { rrule: 'FREQ=DAILY;COUNT=2' } });
      expect(alone.status).toBe(400);
      expect(alone.body.data.params.recurrence).toMatch(/following or all/);
      const res = await update(event.id, { title: 'x' }, 'this');
      expect(res.status).toBe(400);
      expect(res.body.data.params.recurrence_scope).toBeDefined();
      expect((await update(event.id, { title: 'x' }, 'some')).status).toBe(400);
    });

    it('recurrence: null makes the event single and trashes its later occurrences', async () => {
      const event = await weekly();
      const list = await occurrences(event.id);
      const res = await update(event.id, { recurrence: null });
      expect(res.status).toBe(200);
      expect(res.body.recurrence).toBeUndefined();
      expect((await get(list[1].id)).status).toBe('trash'); // as its editors read it
      expect((await occurrences(event.id)).map((e) => e.id)).toEqual([event.id]);
    });

    it('a single event becomes a series on update', async () => {
      const single = await createSeries({ start_date: '2027-09-06 18:00:00', end_date: '2027-09-06 19:00:00' });
      expect(single.recurrence).toBeUndefined();
      const res = await update(single.id, { recurrence: { rrule: 'FREQ=MONTHLY;COUNT=2' } });
      expect(res.body.recurrence.series_id).toBe(single.id);
      expect((await occurrences(single.id)).map((e) => e.start_date)).toEqual([
        '2027-09-06 18:00:00',
        '2027-10-06 18:00:00',
      ]);
    });
  });

  describe('delete scopes', () => {
    const weekly = () =>
      createSeries({
        start_date: '2027-10-04 18:00:00',
        end_date: '2027-10-04 19:00:00',
        recurrence: { rrule: 'FREQ=WEEKLY;COUNT=5' },
      });

    it('this trashes the occurrence and excludes it for good', async () => {
      const event = await weekly();
      const list = await occurrences(event.id);
      const res = await remove(list[1].id);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('trash');
      expect((await get(event.id)).recurrence.exdates).toEqual(['2027-10-11 18:00:00']);
      await update(event.id, { title: 'Regenerated' });
      const after = await occurrences(event.id);
      expect(after.map((e) => e.id)).toEqual([list[0], list[2], list[3], list[4]].map((e) => e.id));
    });

    it('following ends the series before the occurrence', async () => {
      const event = await weekly();
      const list = await occurrences(event.id);
      expect((await remove(list[2].id, 'following')).status).toBe(200);
      expect((await occurrences(event.id)).map((e) => e.id)).toEqual(list.slice(0, 2).map((e) => e.id));
      expect((await get(event.id)).recurrence.rrule).toBe('FREQ=WEEKLY;UNTIL=20271018T175959Z');
    });

    it('all trashes the whole series, force deletes it', async () => {
      const event = await weekly();
      const list = await occurrences(event.id);
      expect((await remove(list[3].id, 'all')).status).toBe(200);
      for (const e of list) expect((await get(e.id)).status).toBe('trash');
      const other = await weekly();
      const others = await occurrences(other.id);
      expect((await remove(other.id, undefined, true)).status).toBe(200);
      for (const e of others)
        expect(
          (
            await http(service)
              .get(`${base}/${e.id}`)
              .auth(...admin())
          ).status,
        ).toBe(404);
    });
  });

  describe('lists', () => {
    it('collapse_recurring shows only the first occurrence of each series in the window', async () => {
      const a = await createSeries({
        title: 'collapse-a',
        start_date: '2027-11-01 10:00:00',
        end_date: '2027-11-01 11:00:00',
        recurrence: { rrule: 'FREQ=DAILY;COUNT=5' },
      });
      await createSeries({
        title: 'collapse-single',
        start_date: '2027-11-02 10:00:00',
        end_date: '2027-11-02 11:00:00',
      });
      const window = { start_date: '2027-11-02', end_date: '2027-11-30', search: 'collapse' };
      const full = await http(service).get(base).query(window);
      expect(full.body.total).toBe(5);
      const collapsed = await http(service)
        .get(base)
        .query({ ...window, collapse_recurring: true });
      expect(
        collapsed.body.events.map((e: { title: string; start_date: string }) => `${e.title} ${e.start_date}`),
      ).toEqual(['collapse-a 2027-11-02 10:00:00', 'collapse-single 2027-11-02 10:00:00']);
      expect(collapsed.body.events[0].recurrence.series_id).toBe(a.id);
    });

    it('collapse_recurring counts an earlier occurrence only when the list shows it (every filter holds for it)', async () => {
      const hall = await insertVenue(service.database.db, 'Collapse hall');
      const annex = await insertVenue(service.database.db, 'Collapse annex');
      const series = await createSeries({
        title: 'collapse-b',
        venue: hall,
        start_date: '2027-10-04 10:00:00',
        end_date: '2027-10-04 11:00:00',
        recurrence: { rrule: 'FREQ=DAILY;COUNT=4' },
      });
      const [, second, third] = await occurrences(series.id);
      expect((await update(second.id, { venue: annex, title: 'collapse-b moved' }, 'this')).status).toBe(200);
      const window = { start_date: '2027-10-05', end_date: '2027-10-31', collapse_recurring: true };
      const titles = async (query: object) =>
        (
          await http(service)
            .get(base)
            .query({ ...window, ...query })
        ).body.events.map((e: { id: number; start_date: string }) => [e.id, e.start_date]);
      // in the hall the moved occurrence is not listed: the series' first there is the third occurrence
      expect(await titles({ venue: hall })).toEqual([[third.id, '2027-10-06 10:00:00']]);
      expect(await titles({ venue: annex })).toEqual([[second.id, '2027-10-05 10:00:00']]);
      expect(await titles({ search: 'collapse-b moved' })).toEqual([[second.id, '2027-10-05 10:00:00']]);
      // without a filter that tells them apart, the earliest one in the window stands for the series
      expect(await titles({ search: 'collapse-b' })).toEqual([[second.id, '2027-10-05 10:00:00']]);
    });

    it('pages /occurrences with the list envelope and windows', async () => {
      const event = await createSeries({
        start_date: '2027-12-01 10:00:00',
        end_date: '2027-12-01 11:00:00',
        recurrence: { rrule: 'FREQ=DAILY;COUNT=10' },
      });
      const res = await http(service)
        .get(`${base}/occurrences/${event.id}`)
        .query({ start_date: '2027-12-03', end_date: '2027-12-08', per_page: 2, page: 2 });
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(6);
      expect(res.body.total_pages).toBe(3);
      expect(res.body.events.map((e: { start_date: string }) => e.start_date)).toEqual([
        '2027-12-05 10:00:00',
        '2027-12-06 10:00:00',
      ]);
      expect(res.body.next_rest_url).toContain(`/events/occurrences/${event.id}`);
      expect(res.headers['x-wp-total']).toBe('6');
      expect((await http(service).get(`${base}/occurrences/999999`)).status).toBe(404);
    });
  });

  describe('horizon', () => {
    let horizonService: TestService;
    beforeAll(async () => {
      horizonService = await startService(engine, { RECURRENCE_HORIZON_MONTHS: '3' });
    });
    afterAll(async () => {
      setClock(clockStartingAt(TEST_NOW));
      await horizonService.close();
    });

    it('materialises open-ended rules to the horizon and extends it daily, once, and for lists past it', async () => {
      const clock = manualClock(TEST_NOW);
      setClock(clock);
      const as = horizonService.as('administrator');
      const res = await http(horizonService)
        .post(base)
        .auth(...as)
        .send({
          title: 'Weekly forever',
          start_date: '2027-06-16 10:00:00',
          end_date: '2027-06-16 11:00:00',
          recurrence: { rrule: 'FREQ=WEEKLY' },
        });
      expect(res.status).toBe(201);
      const count = async () =>
        (
          await http(horizonService)
            .get(`${base}/occurrences/${res.body.id}`)
            .auth(...as)
            .query({ start_date: '2027-01-01', end_date: '2027-09-15', per_page: 1 })
        ).body.total;
      // 16 June to 15 September 2027 (TEST_NOW + 3 months): 14 Wednesdays
      expect(await count()).toBe(14);

      expect(await extendHorizons(horizonService.database.db, horizonService.config)).toBe(true); // first run takes the lease
      clock.advance(30 * 86_400_000);
      expect(await extendHorizons(horizonService.database.db, horizonService.config)).toBe(true);
      expect(await extendHorizons(horizonService.database.db, horizonService.config)).toBe(false); // once a day
      clock.advance(86_400_000);
      // nodes racing for the lease: exactly one of them extends
      const raced = await Promise.all(
        [1, 2, 3].map(() => extendHorizons(horizonService.database.db, horizonService.config)),
      );
      expect(raced.filter(Boolean)).toHaveLength(1);
      const total = async (query: object) =>
        (
          await http(horizonService)
            .get(`${base}/occurrences/${res.body.id}`)
            .auth(...as)
            .query({ per_page: 1, ...query })
        ).body.total;
      // horizon now 18 October 2027 (3 months and 2 days after 16 July): 18 Wednesdays from 16 June
      expect(await total({ start_date: '2027-01-01', end_date: '2027-10-15' })).toBe(18);

      // a list asking past the horizon answers what the horizon covers: reads never materialise (D65)
      expect(await total({ start_date: '2027-01-01', end_date: '2028-06-15' })).toBe(18);
    });

    it('an anonymous list far past the horizon writes nothing', async () => {
      setClock(clockStartingAt(TEST_NOW));
      const as = horizonService.as('administrator');
      for (let i = 0; i < 30; i++) {
        const created = await http(horizonService)
          .post(base)
          .auth(...as)
          .send({
            title: `Weekly draft ${i}`,
            status: 'draft',
            start_date: '2027-06-16 10:00:00',
            end_date: '2027-06-16 11:00:00',
            recurrence: { rrule: 'FREQ=WEEKLY' },
          });
        expect(created.status).toBe(201);
      }
      const db = horizonService.database.db;
      const counts = async () => ({
        events: Number((await db('events').count({ n: '*' }))[0].n),
        changes: Number((await db('changes').count({ n: '*' }))[0].n),
        series: await db('event_series').orderBy('event_id').select('event_id', 'horizon_utc'),
      });
      const before = await counts();
      const res = await http(horizonService)
        .get(base)
        .query({ start_date: '2027-01-01', end_date: '2126-12-31', per_page: 1 });
      expect(res.status).toBe(200);
      expect(await counts()).toEqual(before);
    });
  });
});
