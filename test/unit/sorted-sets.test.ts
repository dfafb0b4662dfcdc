/**
 * The sorted sets of ids that counts and match sets keep (src/db/counts.ts): brought up to date by splicing, they
 * equal the set found again, whatever records moved in or out.
 */
import fc from 'fast-check';
import { holds, intersection, rechecked, sameIntersection } from '../../src/db/counts';

const sortedSet = (values: number[]) => Int32Array.from(new Set(values)).sort();

it('splices the records that moved in or out, and keeps the same set when none did', () => {
  fc.assert(
    fc.property(
      fc.array(fc.nat({ max: 200 }), { maxLength: 120 }),
      fc.array(fc.nat({ max: 220 }), { maxLength: 30 }),
      fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }),
      (members, checked, belongs) => {
        const ids = sortedSet(members);
        const now = new Set(checked.filter((_, i) => belongs[i]));
        const expected = sortedSet([...ids].filter((id) => !checked.includes(id)).concat([...now]));
        const found = rechecked(ids, checked, now);
        expect([...found]).toEqual([...expected]);
        const moved = checked.some((id) => holds(ids, id) !== now.has(id));
        expect(found === ids).toBe(!moved);
      },
    ),
    { seed: 7, numRuns: 500 },
  );
});

it('intersects two sorted sets', () => {
  expect([...intersection(sortedSet([1, 3, 5, 7, 9]), sortedSet([2, 3, 4, 9, 10]))]).toEqual([3, 9]);
  expect([...intersection(sortedSet([]), sortedSet([1]))]).toEqual([]);
});

it('gives the same intersection array for the same two sets, and a new one for another second set', () => {
  const [a, b, c] = [sortedSet([1, 2, 3, 4]), sortedSet([2, 4, 6]), sortedSet([1, 3])];
  const first = sameIntersection(a, b);
  expect([...first]).toEqual([2, 4]);
  expect(sameIntersection(a, b)).toBe(first);
  expect([...sameIntersection(a, c)]).toEqual([1, 3]);
  expect(sameIntersection(a, sortedSet([2, 4, 6]))).not.toBe(first); // equal, but another set: its own array
  expect([...sameIntersection(b, a)]).toEqual([2, 4]);
});
