/**
 * Memoised values (src/db/memo.ts) are made once for the calls that ask for them at one data version, while they are
 * being made, and never shared with a call made after a write.
 */
import { ENGINES, freshDatabase, type TestDatabase } from '../support/engines';
import { migrate } from '../../src/db/migrate';
import { memo } from '../../src/db/memo';

describe.each(ENGINES)('memoised values on %s', (engine) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await freshDatabase(engine);
    await migrate(database.db);
  });
  afterAll(() => database.drop());

  /** A value made on demand: `release` lets the calls made so far finish, each made value numbered in turn. */
  function slowValues() {
    let made = 0;
    let release = () => {};
    const started = new Promise<void>((resolve) => {
      release = resolve;
    });
    const compute = async () => {
      made++;
      const number = made;
      await started;
      return number;
    };
    return { compute, release: () => release(), made: () => made };
  }

  it('makes a value once for the calls at one version that ask while it is made', async () => {
    const values = memo<number>(() => 1, { entries: 10, budget: 10 });
    const slow = slowValues();
    const asked = [1, 2, 3].map(() => values.get(database.db, 'shared', slow.compute));
    await new Promise((resolve) => setTimeout(resolve, 50));
    slow.release();
    expect(await Promise.all(asked)).toEqual([1, 1, 1]);
    expect(slow.made()).toBe(1);
    expect(await values.get(database.db, 'shared', slow.compute)).toBe(1); // then memoised
  });

  it('makes the value again for a call after a write, while the value of before is made', async () => {
    const values = memo<number>(() => 1, { entries: 10, budget: 10 });
    const slow = slowValues();
    const before = values.get(database.db, 'written', slow.compute);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await database.db('terms').insert({ name: 'memo', slug: `memo-${engine}`, taxonomy: 'post_tag', language: 'en' });
    const after = values.get(database.db, 'written', slow.compute);
    await new Promise((resolve) => setTimeout(resolve, 50));
    slow.release();
    expect([await before, await after]).toEqual([1, 2]);
    expect(await values.get(database.db, 'written', slow.compute)).toBe(2);
  });
});
