/**
 * The embeddable calendar's time zones (src/embed/client/zones.ts): instants to the wall-clock time of a zone
 * written as UTC and back, across DST changes, with a time in a spring-forward gap moved forward as the service
 * moves it.
 */
import { formatUtc, fromWall, isZone, nextDay, parseUtc, toWall } from '../../src/embed/client/zones';

const utc = (text: string) => Date.parse(`${text}Z`);

describe('embed time zones', () => {
  it.each([
    ['2027-06-15T17:00:00', 'Europe/Amsterdam', '2027-06-15T19:00:00'], // summer time, +2
    ['2027-01-15T17:00:00', 'Europe/Amsterdam', '2027-01-15T18:00:00'], // winter, +1
    ['2027-06-15T17:00:00', 'America/New_York', '2027-06-15T13:00:00'],
    ['2027-06-15T17:00:00', 'Asia/Kolkata', '2027-06-15T22:30:00'],
    ['2027-06-15T17:00:00', 'UTC', '2027-06-15T17:00:00'],
  ])('shows the instant %s in %s as %s, and reads it back', (instant, zone, wall) => {
    expect(toWall(utc(instant), zone)).toBe(utc(wall));
    expect(fromWall(utc(wall), zone)).toBe(utc(instant));
  });

  it('moves a time in the spring-forward gap forward, and reads the autumn hour twice as the later one', () => {
    // 02:30 on 28 March 2027 does not exist in Amsterdam: 03:30 CEST, 01:30 UTC
    expect(formatUtc(fromWall(utc('2027-03-28T02:30:00'), 'Europe/Amsterdam'))).toBe('2027-03-28 01:30:00');
    // 02:30 on 31 October 2027 happens twice: the later one, 02:30 CET, is 01:30 UTC
    expect(formatUtc(fromWall(utc('2027-10-31T02:30:00'), 'Europe/Amsterdam'))).toBe('2027-10-31 01:30:00');
  });

  it('reads and writes the API’s UTC strings, and steps days across month and year ends', () => {
    expect(parseUtc('2027-06-15 12:00:00')).toBe(utc('2027-06-15T12:00:00'));
    expect(formatUtc(utc('2027-06-15T12:34:56'))).toBe('2027-06-15 12:34:56');
    expect([nextDay('2027-06-30'), nextDay('2027-12-31'), nextDay('2028-02-28')]).toEqual([
      '2027-07-01',
      '2028-01-01',
      '2028-02-29',
    ]);
  });

  it('knows IANA zones from other text', () => {
    expect([isZone('Europe/Amsterdam'), isZone('Mars/Olympus'), isZone(''), isZone(undefined)]).toEqual([
      true,
      false,
      false,
      false,
    ]);
  });
});
