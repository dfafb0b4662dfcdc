/**
 * Which records changed after a position of the change feed (src/db/feed-position.ts, `changesAfter`), read in one
 * statement with how far retention pruned: each record once, the position the read reaches, and nothing when changes
 * after the position are gone or more than asked for follow it; with a bound, only the changes up to it.
 */
import { ENGINES, freshDatabase, type TestDatabase } from '../support/engines';
import { migrate } from '../../src/db/migrate';
import { changesAfter } from '../../src/db/feed-position';

describe.each(ENGINES)('changes after a position of the feed on %s', (engine) => {
  let database: TestDatabase;
  const ids: number[] = [];
  beforeAll(async () => {
    database = await freshDatabase(engine);
    await migrate(database.db);
    const changes = [
      ['event', 7, 'created'],
      ['tag', 3, 'created'],
      ['event', 7, 'updated'],
    ] as const;
    for (const [resource, recordId, action] of changes) {
      const [row] = await database
        .db('changes')
        .insert({ resource, record_id: recordId, action, modified_utc: '2026-11-27 10:00:00' })
        .returning('id');
      ids.push(Number(typeof row === 'object' ? row.id : row));
    }
  });
  afterAll(() => database.drop());

  it('names each record changed once, and reaches the newest change read', async () => {
    expect(await changesAfter(database.db, 0, 10)).toEqual({
      records: [
        { resource: 'event', id: 7 },
        { resource: 'tag', id: 3 },
      ],
      position: ids[2],
    });
    expect(await changesAfter(database.db, ids[0], 10)).toEqual({
      records: [
        { resource: 'tag', id: 3 },
        { resource: 'event', id: 7 },
      ],
      position: ids[2],
    });
    expect(await changesAfter(database.db, ids[2], 10)).toEqual({ records: [], position: ids[2] });
  });

  it('reads only up to a bound when given one, and reaches the bound', async () => {
    expect(await changesAfter(database.db, 0, 10, ids[1])).toEqual({
      records: [
        { resource: 'event', id: 7 },
        { resource: 'tag', id: 3 },
      ],
      position: ids[1],
    });
    expect(await changesAfter(database.db, ids[1], 10, ids[1])).toEqual({ records: [], position: ids[1] });
  });

  it('answers nothing when more changes follow than asked for, or retention pruned some', async () => {
    expect(await changesAfter(database.db, 0, 2)).toBeUndefined();
    expect(await changesAfter(database.db, ids[0], 2)).toBeDefined();
    await database.db('change_feed').where({ id: 1 }).update({ pruned_through: ids[0] });
    expect(await changesAfter(database.db, 0, 10)).toBeUndefined();
    expect(await changesAfter(database.db, ids[0], 10)).toMatchObject({ position: ids[2] });
  });
});
