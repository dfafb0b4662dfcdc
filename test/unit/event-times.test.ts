/**
 * The events' times held in memory (src/resources/events/times.ts): read back from one text, compared as numbers
 * that order as the times' text does, and brought up to date through an overlay folded into new arrays.
 */
import fc from 'fast-check';
import { folded, parsedTimes, timeValue, type Times } from '../../src/resources/events/times';

const time = fc
  .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2199-12-31T23:59:59Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 19).replace('T', ' '));

it('orders times as numbers as their text orders them', () => {
  fc.assert(
    fc.property(time, time, (a, b) => {
      const [x, y] = [timeValue(a) as number, timeValue(b) as number];
      expect(Math.sign(x - y)).toBe(a < b ? -1 : a > b ? 1 : 0);
    }),
    { seed: 5, numRuns: 500 },
  );
});

it.each(['2030-01-01', '2030-01-01T10:00:00', '2030-01-01 10:00:00Z', ' 2030-01-01 10:00:00', '2030-1-01 10:00:00'])(
  'refuses %j as a plain UTC time',
  (text) => expect(timeValue(text)).toBeUndefined(),
);

const byId = (times: Times) =>
  [...times.starts].flatMap((start, id) => (Number.isNaN(start) ? [] : [[id, start, times.ends[id]]]));

it('parses ids and times, and refuses times not plain or ids too sparse to index by', () => {
  const text = '17,2031-12-31 23:59:59,2032-01-01 00:00:00,3,2030-01-01 10:00:00,2030-01-01 11:00:00';
  expect(byId(parsedTimes(text) as Times)).toEqual([
    [3, 20300101100000, 20300101110000],
    [17, 20311231235959, 20320101000000],
  ]);
  expect(parsedTimes('')?.starts.length).toBe(0);
  expect(parsedTimes('3,2030-01-01 10:00,2030-01-01 11:00:00')).toBeUndefined();
  expect(parsedTimes('3,2030-01-01 10:00:00')).toBeUndefined();
  expect(parsedTimes('5000,2030-01-01 10:00:00,2030-01-01 11:00:00')).toBeUndefined();
});

/** A time as `timeValue` gives it, `n` seconds-digits after 2030-01-01 00:00:00, and its text. */
const stamp = (n: number) => 20300101000000 + n;
const text = (value: number) => String(value).replace(/^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/, '$1-$2-$3 $4:$5:$6');

it('folds the overlay into arrays that hold what the overlay and the arrays together say', () => {
  const times = fc.tuple(fc.nat({ max: 1000 }), fc.nat({ max: 1000 })).map(([s, e]) => [stamp(s), stamp(e)] as const);
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.nat({ max: 300 }), times), { maxLength: 100 }),
      fc.array(fc.tuple(fc.nat({ max: 320 }), fc.option(times)), { maxLength: 40 }),
      (base, changes) => {
        const expected = new Map(base);
        const read = parsedTimes([...expected].map(([id, [s, e]]) => `${id},${text(s)},${text(e)}`).join(',')) as Times;
        for (const [id, value] of changes) {
          if (value) expected.set(id, value);
          else expected.delete(id);
        }
        const result = folded({ ...read, overlay: new Map(changes) });
        expect(byId(result)).toEqual([...expected].sort(([a], [b]) => a - b).map(([id, [s, e]]) => [id, s, e]));
        expect(result.overlay.size).toBe(0);
      },
    ),
    { seed: 11, numRuns: 400 },
  );
});
