/**
 * Series in iCalendar feeds on every engine: one VEVENT with RRULE/RDATE/EXDATE per series plus
 * one with RECURRENCE-ID per detached occurrence; python3-recurring-ical-events expands it to exactly what
 * `GET /events/occurrences/{id}` lists; ical.js reads it; radicale stores it.
 */
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';
import {
  expandWithPython,
  parseWithIcalJs,
  parseWithPython,
  splitByUid,
  startRadicale,
  type Radicale,
} from '../support/ical';

const WIDE = { start_date: '2027-01-01', end_date: '2028-12-31', per_page: 50 };

describe.each(ENGINES)('iCalendar series on %s', (engine) => {
  let service: TestService;
  let radicale: Radicale;
  const base = `${NS}/events`;
  const admin = () => service.as('administrator');
  beforeAll(async () => {
    service = await startService(engine, { SITE_TIMEZONE: 'Europe/Amsterdam' });
    radicale = await startRadicale();
  }, 60_000);
  afterAll(async () => {
    await radicale?.stop();
    await service?.close();
  });

  const create = async (body: object) => {
    const res = await http(service)
      .post(base)
      .auth(...admin())
      .send(body);
    expect(res.status).toBe(201);
    return res.body as { id: number; global_id: string; title: string };
  };
  const occurrences = async (id: number) => {
    const res = await http(service)
      .get(`${base}/occurrences/${id}`)
      .auth(...admin())
      .query(WIDE);
    expect(res.status).toBe(200);
    return res.body.events as Array<{
      id: number;
      title: string;
      utc_start_date: string;
      utc_end_date: string;
      start_date: string;
      end_date: string;
      all_day: boolean;
    }>;
  };
  const ical = async (path: string, query: object = {}) => {
    const res = await http(service)
      .get(`${base}${path}`)
      .query(query)
      .buffer(true)
      .parse((r, done) => {
        let text = '';
        r.setEncoding('utf8');
        r.on('data', (chunk: string) => {
          text += chunk;
        });
        r.on('end', () => done(null, text));
      });
    expect(res.status).toBe(200);
    return res.body as string;
  };

  /** The expansion of the feed by python3-recurring-ical-events equals the occurrences the API lists. */
  async function expandsToOccurrences(ics: string, seriesId: number) {
    const listed = await occurrences(seriesId);
    const expanded = expandWithPython(ics, '2027-01-01', '2029-01-01');
    const key = (title: string, start: unknown, end: unknown) => JSON.stringify([title, start, end]);
    const fromApi = listed
      .map((o) =>
        o.all_day
          ? key(o.title, { date: o.start_date.slice(0, 10) }, { date: nextDay(o.end_date.slice(0, 10)) })
          : key(o.title, o.utc_start_date, o.utc_end_date),
      )
      .sort();
    expect(expanded.map((o) => key(o.summary, o.start, o.end)).sort()).toEqual(fromApi);
    return listed;
  }

  it('writes a timed series across a DST change with RDATE, EXDATE, a detached and a deleted occurrence', async () => {
    const series = await create({
      title: 'Weekly class',
      start_date: '2027-10-14 10:00:00',
      end_date: '2027-10-14 11:30:00',
      timezone: 'Europe/Amsterdam',
      recurrence: { rrule: 'FREQ=WEEKLY;COUNT=6', rdates: ['2027-11-03 18:00:00'], exdates: ['2027-10-21 10:00:00'] },
    });
    const listed = await occurrences(series.id);
    expect(listed).toHaveLength(6); // 6 by the rule, one excluded, one added
    const on = (day: string) => listed.find((o) => o.start_date.startsWith(day)) as (typeof listed)[number];
    const moved = on('2027-11-04'); // after the change to winter time
    await http(service)
      .post(`${base}/${moved.id}`)
      .auth(...admin())
      .send({ title: 'Weekly class (room 2)', start_date: '2027-11-04 14:00:00', end_date: '2027-11-04 15:00:00' })
      .expect(200);
    const dropped = on('2027-11-11');
    await http(service)
      .delete(`${base}/${dropped.id}`)
      .auth(...admin())
      .expect(200);

    const ics = await ical(`/ical/${moved.id}`); // any occurrence answers the whole series
    expect(ics).toContain('RRULE:FREQ=WEEKLY;COUNT=6\r\n');
    expect(ics).toContain('RDATE;TZID=Europe/Amsterdam:20271103T180000\r\n');
    expect(ics).toContain('EXDATE;TZID=Europe/Amsterdam:20271021T100000,20271111T100000\r\n');
    expect(ics).toContain('RECURRENCE-ID;TZID=Europe/Amsterdam:20271104T100000\r\n');
    const vevents = parseWithIcalJs(ics).events;
    expect(vevents.map((e) => [e.uid, e.recurrence_id])).toEqual([
      [series.global_id, null],
      [series.global_id, '2027-11-04 09:00:00'],
    ]);
    expect(parseWithPython(ics).events.map((e) => e.recurrence_id)).toEqual([null, '2027-11-04 09:00:00']);
    const api = await expandsToOccurrences(ics, series.id);
    expect(api).toHaveLength(5);
    expect((await radicale.put(series.global_id, ics)).status).toBe(201);
  });

  it('writes an all-day series with a date UNTIL, and a series once in a list feed', async () => {
    const series = await create({
      title: 'Market day',
      all_day: true,
      start_date: '2027-07-03',
      end_date: '2027-07-03',
      timezone: 'Europe/Amsterdam',
      recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=SA;UNTIL=20270731' },
    });
    const ics = await ical(`/ical/${series.id}`);
    expect(ics).toContain('DTSTART;VALUE=DATE:20270703\r\n');
    expect(ics).toContain('RRULE:FREQ=WEEKLY;BYDAY=SA;UNTIL=20270731\r\n');
    expect(await expandsToOccurrences(ics, series.id)).toHaveLength(5);
    expect((await radicale.put(series.global_id, ics)).status).toBe(201);

    const timed = await create({
      title: 'Morning run',
      start_date: '2027-07-05 07:00:00',
      end_date: '2027-07-05 08:00:00',
      timezone: 'America/New_York',
      recurrence: { rrule: 'FREQ=DAILY;UNTIL=20270709' },
    });
    const one = await ical(`/ical/${timed.id}`);
    expect(one).toContain('RRULE:FREQ=DAILY;UNTIL=20270710T035959Z\r\n'); // the whole local day, in UTC
    expect(await expandsToOccurrences(one, timed.id)).toHaveLength(5);

    const feed = await ical('/ical', { start_date: '2027-07-01', end_date: '2027-07-31' });
    const uids = parseWithIcalJs(feed).events.map((e) => e.uid);
    expect(uids.filter((uid) => uid === series.global_id)).toHaveLength(1);
    expect(uids.filter((uid) => uid === timed.global_id)).toHaveLength(1);
    for (const [uid, one] of splitByUid(feed)) expect([uid, (await radicale.put(uid, one)).status]).toEqual([uid, 201]);
  });
});

function nextDay(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}
