/**
 * Date parsing and formatting (docs/compatibility.md §1.2, §1.3, §4.3, §5.1, §7.2). Results must not depend on the
 * process time zone: run this file under TZ=UTC, TZ=America/New_York and TZ=Asia/Kolkata.
 */
import { DateTime } from 'luxon';
import {
  dateDetails,
  endOfDay,
  formatLocal,
  formatUtc,
  fromLocal,
  fromUtc,
  isoWithOffset,
  normaliseTimezone,
  parseDateInput,
  startOfDay,
  timezoneAbbr,
  zoneOf,
} from '../../src/domain/dates';

const NOW = new Date('2025-03-10T12:00:00Z'); // a Monday; 13:00 in Amsterdam

/** Local and UTC wall clocks of a parsed input, or undefined. */
function parsed(input: string | number, zone: string, now = NOW): [string, string] | undefined {
  const dt = parseDateInput(input, zone, now);
  return dt && [formatLocal(dt, zone), formatUtc(dt)];
}

describe('parseDateInput', () => {
  it('reads the plugin example in the event zone (Asia/Hong_Kong)', () => {
    expect(parsed('2018-01-01 4pm', 'Asia/Hong_Kong')).toEqual(['2018-01-01 16:00:00', '2018-01-01 08:00:00']);
  });

  it.each([
    ['2025-04-12 09:00:00', '2025-04-12 09:00:00', '2025-04-12 07:00:00'],
    ['2025-04-12', '2025-04-12 00:00:00', '2025-04-11 22:00:00'],
    ['April 12 2025 9am', '2025-04-12 09:00:00', '2025-04-12 07:00:00'],
    ['2025-04-12T09:00:00', '2025-04-12 09:00:00', '2025-04-12 07:00:00'],
    ['  2025-01-15 18:30  ', '2025-01-15 18:30:00', '2025-01-15 17:30:00'],
    ['2025-02-30', '2025-03-02 00:00:00', '2025-03-01 23:00:00'], // PHP rolls over
  ])('reads absolute %j as wall-clock time in the zone', (input, local, utc) => {
    expect(parsed(input, 'Europe/Amsterdam')).toEqual([local, utc]);
  });

  it.each([
    ['2025-04-12T09:00:00Z', '2025-04-12 09:00:00'],
    ['2025-04-12T09:00:00+05:00', '2025-04-12 04:00:00'],
    ['2025-04-12 09:00:00 -0330', '2025-04-12 12:30:00'],
    ['2025-04-12 09:00 EST', '2025-04-12 14:00:00'],
    ['@1744448400', '2025-04-12 09:00:00'],
  ])('lets the offset in %j win over the zone', (input, utc) => {
    expect(parsed(input, 'Europe/Amsterdam')?.[1]).toBe(utc);
  });

  it.each([
    ['tomorrow 9am', '2025-03-11 09:00:00'],
    ['next wednesday 4pm', '2025-03-12 16:00:00'],
    ['+5 days 11am', '2025-03-15 11:00:00'],
    ['yesterday', '2025-03-09 00:00:00'],
    ['today', '2025-03-10 00:00:00'],
    ['now', '2025-03-10 13:00:00'],
    ['+1 week', '2025-03-17 13:00:00'],
    ['last day of next month', '2025-04-30 13:00:00'],
    ['next monday', '2025-03-17 00:00:00'],
  ])('reads relative %j from now in the zone', (input, local) => {
    expect(parsed(input, 'Europe/Amsterdam')?.[0]).toBe(local);
  });

  it('reads "next <weekday>" on that weekday as a week later, as PHP does (locutus says today)', () => {
    const wednesday = new Date('2025-03-12T12:00:00Z');
    expect(parsed('next wednesday 4pm', 'UTC', wednesday)?.[0]).toBe('2025-03-19 16:00:00');
    expect(parsed('first wed', 'UTC', wednesday)?.[0]).toBe('2025-03-19 00:00:00');
    expect(parsed('second wednesday', 'UTC', wednesday)?.[0]).toBe('2025-03-26 00:00:00');
    expect(parsed('2025-03-05 next wednesday', 'UTC', wednesday)?.[0]).toBe('2025-03-12 00:00:00');
    expect(parsed('next thursday', 'UTC', wednesday)?.[0]).toBe('2025-03-13 00:00:00');
    expect(parsed('wednesday', 'UTC', wednesday)?.[0]).toBe('2025-03-12 00:00:00');
    expect(parsed('this wednesday', 'UTC', wednesday)?.[0]).toBe('2025-03-12 00:00:00');
    expect(parsed('last wednesday', 'UTC', wednesday)?.[0]).toBe('2025-03-05 00:00:00');
  });

  it('takes "today" in the zone, not in UTC or the process zone', () => {
    // 2025-03-10T23:30Z is already the 11th in Tokyo and still the 10th in Los Angeles
    const late = new Date('2025-03-10T23:30:00Z');
    expect(parsed('today', 'Asia/Tokyo', late)).toEqual(['2025-03-11 00:00:00', '2025-03-10 15:00:00']);
    expect(parsed('today', 'America/Los_Angeles', late)).toEqual(['2025-03-10 00:00:00', '2025-03-10 07:00:00']);
    expect(parsed('tomorrow 9am', 'UTC-3:30', late)).toEqual(['2025-03-11 09:00:00', '2025-03-11 12:30:00']);
  });

  it('reads Unix timestamps as instants, whatever the zone', () => {
    for (const zone of ['Asia/Hong_Kong', 'America/New_York', 'UTC+5']) {
      expect(parsed(1514793600, zone)?.[1]).toBe('2018-01-01 08:00:00');
      expect(parsed('1514793600', zone)?.[1]).toBe('2018-01-01 08:00:00');
    }
    expect(parsed('-86400', 'UTC')).toEqual(['1969-12-31 00:00:00', '1969-12-31 00:00:00']);
    expect(parsed(0.9, 'UTC')?.[1]).toBe('1970-01-01 00:00:00');
    expect(parsed(1514793600, 'Asia/Hong_Kong')?.[0]).toBe('2018-01-01 16:00:00');
  });

  it('reads nothing outside four-digit years, where no wall clock can hold the instant', () => {
    expect(parsed('-1090031991948', 'UTC')).toBeUndefined();
    expect(parsed(253402300800, 'UTC')).toBeUndefined(); // 10000-01-01
    expect(parsed('+10000 years', 'UTC')).toBeUndefined();
    expect(parsed('9998-06-01 12:00:00', 'UTC')?.[1]).toBe('9998-06-01 12:00:00');
  });

  it('returns the instant in the zone, with milliseconds 0', () => {
    const dt = parseDateInput('now', 'Europe/Amsterdam', new Date('2025-03-10T12:00:00.789Z'))!;
    expect(dt.zoneName).toBe('Europe/Amsterdam');
    expect(dt.millisecond).toBe(0);
    expect(dt.toUTC().toISO()).toBe('2025-03-10T12:00:00.000Z');
  });

  it('reads offset zones', () => {
    expect(parsed('2025-04-12 09:00:00', 'UTC+5')).toEqual(['2025-04-12 09:00:00', '2025-04-12 04:00:00']);
    expect(parsed('2025-04-12 09:00:00', 'UTC-3:30')).toEqual(['2025-04-12 09:00:00', '2025-04-12 12:30:00']);
    expect(parsed('2025-04-12 09:00:00', 'UTC')).toEqual(['2025-04-12 09:00:00', '2025-04-12 09:00:00']);
  });

  it('moves a time in a DST gap forward, as PHP does', () => {
    expect(parsed('2025-03-30 02:30:00', 'Europe/Amsterdam')).toEqual(['2025-03-30 03:30:00', '2025-03-30 01:30:00']);
  });

  it('takes the first of two equal wall-clock times in a DST overlap, as PHP does', () => {
    expect(parsed('2025-10-26 02:30:00', 'Europe/Amsterdam')).toEqual(['2025-10-26 02:30:00', '2025-10-26 00:30:00']);
    expect(parsed('2025-11-02 01:30:00', 'America/New_York')).toEqual(['2025-11-02 01:30:00', '2025-11-02 05:30:00']);
    // "now" during the repeated hour stays the real instant
    expect(parsed('now', 'America/New_York', new Date('2025-11-02T06:30:00Z'))?.[1]).toBe('2025-11-02 06:30:00');
  });

  it('is not disturbed by DST gaps of the process zone (New York, 9 March 2025)', () => {
    expect(parsed('2025-03-09 02:30:00', 'Europe/Amsterdam')).toEqual(['2025-03-09 02:30:00', '2025-03-09 01:30:00']);
    expect(parsed('2025-03-09 02:30:00', 'UTC')?.[1]).toBe('2025-03-09 02:30:00');
  });

  it.each(['', '   ', 'garbage', 'next blursday', '2025-13-45 99:99', '.', ',', 'x'.repeat(201)])(
    'returns undefined for %j',
    (input) => {
      expect(parseDateInput(input, 'Europe/Amsterdam', NOW)).toBeUndefined();
    },
  );

  it('does not read zone names inside the text (PHP does; locutus does not)', () => {
    expect(parseDateInput('2025-04-12 09:00 Europe/Amsterdam', 'UTC', NOW)).toBeUndefined();
  });

  it('rejects inputs over 200 characters even when readable', () => {
    expect(parseDateInput(`${' '.repeat(10)}tomorrow`, 'UTC', NOW)).toBeDefined();
    expect(parseDateInput(`tomorrow${' '.repeat(200)}9am`, 'UTC', NOW)).toBeUndefined();
  });

  it('leaves the global Date as it was', () => {
    const before = Date;
    parseDateInput('tomorrow 9am', 'Europe/Amsterdam', NOW);
    parseDateInput('garbage', 'Europe/Amsterdam', NOW);
    expect(Date).toBe(before);
  });
});

describe('normaliseTimezone', () => {
  it.each([
    ['Europe/Amsterdam', 'Europe/Amsterdam'],
    ['europe/amsterdam', 'Europe/Amsterdam'],
    ['AMERICA/NEW_YORK', 'America/New_York'],
    ['america/port-au-prince', 'America/Port-au-Prince'],
    ['Asia/Kolkata', 'Asia/Kolkata'], // an alias Intl would rename to Asia/Calcutta: kept as sent
    ['UTC', 'UTC'],
    ['utc', 'UTC'],
    ['UTC+0', 'UTC'],
    ['UTC-0', 'UTC'],
    ['UTC+5', 'UTC+5'],
    ['UTC+05', 'UTC+5'],
    ['UTC-3:30', 'UTC-3:30'],
    ['UTC+05:30', 'UTC+5:30'],
    ['UTC+5:45', 'UTC+5:45'],
    ['UTC+14', 'UTC+14'],
    ['UTC-12', 'UTC-12'],
  ])('%j → %j', (input, zone) => {
    expect(normaliseTimezone(input)).toBe(zone);
  });

  const invalid = ['', 'Mars/Olympus', 'UTC+15', 'UTC-13', 'UTC+5:70', 'UTC+5:3', 'UTC+', '+05:00', 'Europe/Paris '];
  it.each([...invalid, 'Europe/../Paris'])('%j is invalid', (input) => {
    expect(normaliseTimezone(input)).toBeUndefined();
  });
});

describe('zoneOf', () => {
  it('gives fixed zones for offsets and IANA zones for names', () => {
    expect(zoneOf('UTC+5').offset(0)).toBe(300);
    expect(zoneOf('UTC-3:30').offset(0)).toBe(-210);
    expect(zoneOf('UTC').offset(0)).toBe(0);
    expect(zoneOf('Europe/Amsterdam').name).toBe('Europe/Amsterdam');
  });

  it('throws for a string that is not a zone', () => {
    expect(() => zoneOf('Mars/Olympus')).toThrow(RangeError);
    expect(() => zoneOf('UTC+15')).toThrow(RangeError);
    expect(() => zoneOf('')).toThrow(RangeError);
  });
});

describe('wall clocks', () => {
  const instant = DateTime.fromISO('2025-04-12T07:00:00Z');

  it('formats in a zone and in UTC', () => {
    expect(formatLocal(instant, 'Europe/Amsterdam')).toBe('2025-04-12 09:00:00');
    expect(formatLocal(instant, 'UTC-3:30')).toBe('2025-04-12 03:30:00');
    expect(formatUtc(instant.setZone('Asia/Tokyo'))).toBe('2025-04-12 07:00:00');
  });

  it('reads local and UTC wall clocks back', () => {
    expect(fromLocal('2025-04-12 09:00:00', 'Europe/Amsterdam').toMillis()).toBe(instant.toMillis());
    expect(fromLocal('2025-04-12 09:00:00', 'Europe/Amsterdam').zoneName).toBe('Europe/Amsterdam');
    expect(fromLocal('2025-04-12 12:30:00', 'UTC+5:30').toMillis()).toBe(instant.toMillis());
    expect(fromUtc('2025-04-12 07:00:00').toMillis()).toBe(instant.toMillis());
  });

  it('applies the DST rule: gaps shift forward, overlaps take the earlier instant', () => {
    expect(formatUtc(fromLocal('2025-03-30 02:30:00', 'Europe/Amsterdam'))).toBe('2025-03-30 01:30:00');
    const gap = fromLocal('2025-03-30 02:30:00', 'Europe/Amsterdam');
    expect(formatLocal(gap, 'Europe/Amsterdam')).toBe('2025-03-30 03:30:00');
    expect(formatUtc(fromLocal('2025-10-26 02:30:00', 'Europe/Amsterdam'))).toBe('2025-10-26 00:30:00');
    expect(formatUtc(fromLocal('2025-03-09 02:30:00', 'America/New_York'))).toBe('2025-03-09 07:30:00');
    expect(formatUtc(fromLocal('2025-11-02 01:30:00', 'America/New_York'))).toBe('2025-11-02 05:30:00');
  });

  it('throws on malformed wall clocks', () => {
    expect(() => fromLocal('2025-04-12T09:00:00', 'UTC')).toThrow(RangeError);
    expect(() => fromLocal('2025-02-30 09:00:00', 'UTC')).toThrow(RangeError);
    expect(() => fromUtc('soon')).toThrow(RangeError);
  });

  it('splits a wall clock into zero-padded details', () => {
    expect(dateDetails('2025-04-05 09:03:00')).toEqual({
      year: '2025',
      month: '04',
      day: '05',
      hour: '09',
      minutes: '03',
      seconds: '00',
    });
    expect(dateDetails('0000-00-00 00:00:00').month).toBe('00');
    expect(() => dateDetails('2025-04-05')).toThrow(RangeError);
  });
});

describe('timezoneAbbr', () => {
  const winter = DateTime.fromISO('2025-01-15T12:00:00Z');
  const summer = DateTime.fromISO('2025-07-15T12:00:00Z');

  it.each([
    ['Europe/Amsterdam', summer, 'CEST'],
    ['Europe/Amsterdam', winter, 'CET'],
    ['America/New_York', winter, 'EST'],
    ['America/New_York', summer, 'EDT'],
    ['Europe/London', summer, 'BST'],
    ['Europe/London', winter, 'GMT'],
    ['Asia/Hong_Kong', winter, 'HKT'],
    ['Asia/Kolkata', winter, 'IST'],
    ['Australia/Darwin', winter, 'ACST'],
    ['UTC', winter, 'UTC'],
    ['UTC+5', winter, 'UTC+5'],
    ['UTC-3:30', summer, 'UTC-3:30'],
    ['Asia/Tokyo', winter, 'JST'], // Intl's English locales only know 'GMT+9'
    ['America/Sao_Paulo', winter, '-03'], // the tz database's numeric abbreviation, as PHP prints it
    ['Europe/Berlin', summer, 'CEST'],
  ])('%s at %s → %s', (zone, at, abbr) => {
    expect(timezoneAbbr(zone, at)).toBe(abbr);
  });
});

describe('isoWithOffset', () => {
  it('writes ISO 8601 with the zone offset to the second', () => {
    const instant = DateTime.fromISO('2025-04-12T07:00:00.456Z');
    expect(isoWithOffset(instant, 'Europe/Amsterdam')).toBe('2025-04-12T09:00:00+02:00');
    expect(isoWithOffset(instant, 'America/New_York')).toBe('2025-04-12T03:00:00-04:00');
    expect(isoWithOffset(instant, 'UTC-3:30')).toBe('2025-04-12T03:30:00-03:30');
    expect(isoWithOffset(instant, 'UTC')).toBe('2025-04-12T07:00:00+00:00');
  });
});

describe('startOfDay / endOfDay', () => {
  it('gives 00:00:00 and 23:59:59 of the calendar day in the zone', () => {
    const instant = DateTime.fromISO('2025-04-12T23:30:00Z'); // already the 13th in Amsterdam
    expect(formatLocal(startOfDay(instant, 'Europe/Amsterdam'), 'Europe/Amsterdam')).toBe('2025-04-13 00:00:00');
    expect(formatUtc(startOfDay(instant, 'Europe/Amsterdam'))).toBe('2025-04-12 22:00:00');
    expect(formatLocal(endOfDay(instant, 'Europe/Amsterdam'), 'Europe/Amsterdam')).toBe('2025-04-13 23:59:59');
    expect(formatLocal(endOfDay(instant, 'America/New_York'), 'America/New_York')).toBe('2025-04-12 23:59:59');
    expect(formatUtc(endOfDay(instant, 'UTC+5'))).toBe('2025-04-13 18:59:59');
  });

  it('spans 23 hours on the day clocks go forward', () => {
    const day = DateTime.fromISO('2025-03-30T12:00:00Z');
    const span = endOfDay(day, 'Europe/Amsterdam').diff(startOfDay(day, 'Europe/Amsterdam'), 'seconds').seconds;
    expect(span).toBe(23 * 3600 - 1);
  });

  it('moves a midnight that falls in a DST gap to the first hour (America/Santiago, 7 September 2025)', () => {
    const day = DateTime.fromISO('2025-09-07T15:00:00Z');
    expect(formatLocal(startOfDay(day, 'America/Santiago'), 'America/Santiago')).toBe('2025-09-07 01:00:00');
  });
});
