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

it('parses ids and times, and refuses times not plain or ids not ascending', () => {
  const text = '3,2030-01-01 10:00:00,2030-01-01 11:00:00,17,2031-12-31 23:59:59,2032-01-01 00:00:00';
  const times = parsedTimes(text) as Times;
  expect([...times.ids]).toEqual([3, 17]);
  expect([...times.starts]).toEqual([20300101100000, 20311231235959]);
  expect([...times.ends]).toEqual([20300101110000, 20320101000000]);
  expect(parsedTimes('')?.ids.length).toBe(0);
  expect(parsedTimes('3,2030-01-01 10:00,2030-01-01 11:00:00')).toBeUndefined();
  expect(
    parsedTimes('17,2030-01-01 10:00:00,2030-01-01 11:00:00,3,2030-01-01 10:00:00,2030-01-01 11:00:00'),
  ).toBeUndefined();
  expect(parsedTimes('3,2030-01-01 10:00:00')).toBeUndefined();
});

it('folds the overlay into arrays that hold what the overlay and the arrays together say', () => {
  const entry = fc.tuple(fc.nat({ max: 300 }), fc.nat({ max: 1000 }));
  fc.assert(
    fc.property(
      fc.array(entry, { maxLength: 100 }),
      fc.array(fc.tuple(fc.nat({ max: 320 }), fc.option(entry.map(([s, e]) => [s, e] as const))), { maxLength: 40 }),
      (base, changes) => {
        const expected = new Map(base.map(([id, start]) => [id, [start, start + 1] as const]));
        const ids = [...expected.keys()].sort((a, b) => a - b);
        const times: Times = {
          ids: Int32Array.from(ids),
          starts: Float64Array.from(ids.map((id) => expected.get(id)![0])),
          ends: Float64Array.from(ids.map((id) => expected.get(id)![1])),
          overlay: new Map(changes),
        };
        for (const [id, value] of changes) {
          if (value) expected.set(id, value);
          else expected.delete(id);
        }
        const result = folded(times);
        const wanted = [...expected].sort(([a], [b]) => a - b);
        expect([...result.ids]).toEqual(wanted.map(([id]) => id));
        expect([...result.starts]).toEqual(wanted.map(([, value]) => value[0]));
        expect([...result.ends]).toEqual(wanted.map(([, value]) => value[1]));
        expect(result.overlay.size).toBe(0);
      },
    ),
    { seed: 11, numRuns: 400 },
  );
});
