/**
 * Our expansion (rrule in floating time, placed in the zone with luxon) against the independent one the fixture
 * holds (Debian's python3-dateutil, written by scripts/series-fixtures.py), case by case, exactly.
 */
import fixture from './fixtures/series-rules.json';
import { expandSeries, normaliseLocal, parseRule, RuleError } from '../../src/resources/series/rules';

interface Case {
  name: string;
  rrule: string;
  start: string;
  zone: string;
  all_day?: boolean;
  rdates?: string[];
  exdates?: string[];
  horizon_utc?: string;
  expected: Array<{ local: string; utc: string }>;
}

const cases = (fixture as { cases: Case[] }).cases;
const parts = [
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
];

describe('series rules against python3-dateutil', () => {
  it('holds at least 40 rules covering every part, both UNTIL forms and the three DST zones', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    for (const part of parts) expect(cases.some((c) => c.rrule.includes(`${part}=`))).toBe(true);
    expect(cases.some((c) => /UNTIL=\d{8};|UNTIL=\d{8}$/.test(c.rrule))).toBe(true);
    expect(cases.some((c) => /UNTIL=\d{8}T\d{6}Z/.test(c.rrule))).toBe(true);
    for (const zone of ['Europe/Berlin', 'America/New_York', 'Australia/Sydney'])
      expect(cases.filter((c) => c.zone === zone).length).toBeGreaterThan(3);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const expansion = expandSeries({
      rule: parseRule(c.rrule),
      start: c.start,
      zone: c.zone,
      allDay: Boolean(c.all_day),
      rdates: (c.rdates ?? []).map((d) => normaliseLocal(d) as string),
      exdates: (c.exdates ?? []).map((d) => normaliseLocal(d) as string),
      horizonUtc: c.horizon_utc,
    });
    expect(expansion.occurrences.map(({ local, utc }) => ({ local, utc }))).toEqual(c.expected);
    expect(expansion.overflow).toBe(false);
  });
});

describe('rule validation', () => {
  it.each([
    ['FREQ=HOURLY', 'recurrence_frequency'],
    ['FREQ=MINUTELY;COUNT=3', 'recurrence_frequency'],
    ['FREQ=SECONDLY', 'recurrence_frequency'],
    ['COUNT=3', 'recurrence_frequency'],
    ['FREQ=WEEKLY;FOO=1', 'recurrence_part'],
    ['FREQ=DAILY;BYHOUR=9', 'recurrence_part'],
    ['FREQ=WEEKLY;BYDAY=XX', 'recurrence_value'],
    ['FREQ=WEEKLY;BYDAY=2TU', 'recurrence_value'],
    ['FREQ=MONTHLY;BYMONTHDAY=32', 'recurrence_value'],
    ['FREQ=MONTHLY;BYMONTHDAY=0', 'recurrence_value'],
    ['FREQ=YEARLY;BYMONTH=13', 'recurrence_value'],
    ['FREQ=DAILY;UNTIL=2027-06-30', 'recurrence_value'],
    ['FREQ=DAILY;UNTIL=20270230', 'recurrence_value'],
    ['FREQ=DAILY;INTERVAL=0', 'recurrence_value'],
    ['FREQ=DAILY;COUNT=2;COUNT=3', 'recurrence_value'],
    ['FREQ=MONTHLY;BYSETPOS=1', 'recurrence_value'],
    ['FREQ=DAILY;COUNT=2;UNTIL=20270101', 'recurrence_count_until'],
    ['FREQ=DAILY;COUNT=1001', 'recurrence_too_many'],
    ['FREQ', 'recurrence_syntax'],
  ])('%s → %s', (rule, key) => {
    let error: unknown;
    try {
      parseRule(rule);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(RuleError);
    expect((error as RuleError).key).toBe(key);
  });

  it.each([
    'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30;COUNT=1',
    'FREQ=MONTHLY;BYDAY=1MO;BYMONTHDAY=20',
    'FREQ=YEARLY;BYWEEKNO=1;BYMONTH=7;COUNT=2',
    'FREQ=DAILY;INTERVAL=7;BYDAY=TU;COUNT=2',
    'FREQ=MONTHLY;BYMONTH=4;UNTIL=99991231',
  ])('expands %s, which no day matches, to nothing without walking to the year 9999', (text) => {
    const started = performance.now();
    const expansion = expandSeries({
      rule: parseRule(text),
      start: '2027-01-31 10:00:00',
      zone: 'UTC',
      allDay: false,
      horizonUtc: '2029-01-01 00:00:00',
    });
    expect(expansion.occurrences).toEqual([]);
    // it took half a minute before the guard, milliseconds since: a bound a loaded machine meets, not a benchmark
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it.each(['FREQ=WEEKLY;BYDAY=MO;BYSETPOS=2', 'FREQ=DAILY;BYMONTH=1;BYSETPOS=2', 'FREQ=MONTHLY;BYDAY=MO;BYSETPOS=6'])(
    'refuses %s: a position no period can hold',
    (text) => {
      expect(() => parseRule(text)).toThrow(RuleError);
    },
  );

  it('reports a bounded rule that yields more than 1000 occurrences', () => {
    const expansion = expandSeries({
      rule: parseRule('FREQ=DAILY;UNTIL=20300101'),
      start: '2027-01-01 10:00:00',
      zone: 'UTC',
      allDay: false,
    });
    expect(expansion.overflow).toBe(true);
  });
});
