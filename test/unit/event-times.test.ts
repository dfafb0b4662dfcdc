/**
 * The events' times held in memory (src/resources/events/times.ts): read back from one text, compared as numbers
 * that order as the times' text does, and brought up to date through an overlay folded into new arrays.
 */
import fc from 'fast-check';
import { earliestOf, folded, held, parsedTimes, timeValue, type Times } from '../../src/resources/events/times';

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

const byId = ({ spans }: Times) =>
  Array.from({ length: spans.length / 2 }, (_, id) => [id, spans[2 * id], spans[2 * id + 1]]).filter(
    ([, start]) => !Number.isNaN(start),
  );

it('parses ids and times, and refuses times not plain or ids too sparse to index by', () => {
  const text = '17,2031-12-31 23:59:59,2032-01-01 00:00:00,3,2030-01-01 10:00:00,2030-01-01 11:00:00';
  expect(byId(parsedTimes(text) as Times)).toEqual([
    [3, 20300101100000, 20300101110000],
    [17, 20311231235959, 20320101000000],
  ]);
  expect(parsedTimes('')?.spans.length).toBe(0);
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

it("keeps, of a list's members, every one that may be among its first, and none that cannot", () => {
  const spans = fc.array(fc.tuple(fc.nat({ max: 120 }), fc.option(fc.nat({ max: 30 }))), { maxLength: 160 });
  fc.assert(
    fc.property(spans, fc.array(fc.nat({ max: 40 })), fc.integer({ min: 1, max: 100 }), (rows, patches, count) => {
      // ties are common (starts among 31 values); some members are read again since, into the overlay
      const base = rows.flatMap(([id, start]) => (start === null ? [] : [[id, start] as const]));
      const read = parsedTimes(base.map(([id, s]) => `${id},${text(stamp(s))},${text(stamp(s + 1))}`).join(','));
      const overlay = new Map(patches.map((id) => [id, [stamp(id % 7), stamp(id % 7)] as const]));
      const start = new Map([...new Map(base)].map(([id, s]) => [id, stamp(s)]));
      for (const [id, [s]] of overlay) start.set(id, s);
      const members = Int32Array.from([...start.keys()].sort((a, b) => a - b));
      const kept = earliestOf({ ...(read as Times), overlay }, members, count) as Int32Array;
      // in list order (start, then any order among ties): the first `count` are kept, and nothing starting later
      const startOf = (id: number) => start.get(id) as number;
      const ordered = [...members].sort((a, b) => startOf(a) - startOf(b));
      const last = startOf(ordered[Math.min(count, ordered.length) - 1]);
      expect([...kept].sort((a, b) => a - b)).toEqual(
        ordered.filter((id) => startOf(id) <= last).sort((a, b) => a - b),
      );
    }),
    { seed: 13, numRuns: 500 },
  );
  const times = parsedTimes(`1,${text(stamp(1))},${text(stamp(2))}`) as Times;
  expect(earliestOf(times, Int32Array.from([1, 2]), 1)).toBeUndefined(); // a member not held: the walk decides
});

it('finds the same members of a set within a window whether its spans were gathered before or not', () => {
  // sets past a thousand members have their spans gathered and kept; the same set is asked again with new times
  const set = fc.uniqueArray(fc.nat({ max: 2400 }), { minLength: 900, maxLength: 1300 });
  const window = fc.tuple(fc.nat({ max: 60 }), fc.nat({ max: 60 }));
  fc.assert(
    fc.property(set, fc.array(fc.nat({ max: 2500 }), { maxLength: 30 }), window, (ids, changed, [from, to]) => {
      const base = new Map(ids.filter((id) => id % 5 !== 0).map((id) => [id, stamp(id % 50)] as const));
      const read = parsedTimes([...base].map(([id, s]) => `${id},${text(s)},${text(s + 1)}`).join(',')) as Times;
      const candidates = Int32Array.from(ids).sort();
      const within = (start: number, end: number) => start >= stamp(from) && end <= stamp(to) + 1;
      const model = (starts: Map<number, number>) =>
        [...candidates].filter(
          (id) => starts.has(id) && within(starts.get(id) as number, (starts.get(id) as number) + 1),
        );
      for (let ask = 0; ask < 2; ask++) expect([...held(read, candidates, within)]).toEqual(model(base));
      // a write: some events read again into the overlay (null: no longer kept), the others as they were
      const overlay = new Map(
        changed.map((id) => [id, id % 3 ? ([stamp(id % 40), stamp(id % 40) + 1] as const) : null]),
      );
      const now = new Map(base);
      for (const [id, span] of overlay) {
        if (span) now.set(id, span[0]);
        else now.delete(id);
      }
      for (let ask = 0; ask < 2; ask++) expect([...held({ ...read, overlay }, candidates, within)]).toEqual(model(now));
    }),
    { seed: 17, numRuns: 300, endOnFailure: true },
  );
});
