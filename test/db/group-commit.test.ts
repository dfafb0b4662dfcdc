/**
 * Group commit on SQLite (src/db/group-commit.ts): writes that arrive together share one commit, each in a
 * savepoint of its own; a write that fails rolls back alone; nobody hears of success before the commit.
 */
import { freshDatabase, type TestDatabase } from '../support/engines';
import { groupedTransaction } from '../../src/db/group-commit';
import { http, NS, startService, type TestService } from '../support/app';

describe('group commit (SQLite)', () => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await freshDatabase('sqlite');
    await database.db.schema.createTable('notes', (t) => {
      t.integer('id').primary();
      t.text('text').notNullable();
    });
  });
  afterEach(() => database.drop());

  const commits = () => {
    const seen: string[] = [];
    database.db.on('query', ({ sql }: { sql: string }) => {
      if (/^commit/i.test(sql)) seen.push(sql);
    });
    return seen;
  };

  it('runs concurrent writes in one transaction, a savepoint each: one failure rolls back alone', async () => {
    const { db } = database;
    const seen = commits();
    const write = (id: number) =>
      groupedTransaction(db, async (trx) => {
        await trx('notes').insert({ id, text: `note ${id}` });
        if (id === 3) throw new Error('refused');
        return id;
      });
    const outcomes = await Promise.allSettled([1, 2, 3, 4, 5].map(write));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((outcomes[2] as PromiseRejectedResult).reason.message).toBe('refused');
    expect(
      outcomes.filter((o) => o.status === 'fulfilled').map((o) => (o as PromiseFulfilledResult<number>).value),
    ).toEqual([1, 2, 4, 5]);
    expect((await db('notes').orderBy('id')).map((row: { id: number }) => row.id)).toEqual([1, 2, 4, 5]);
    // 1, 2 and 3 (refused, rolled back alone) shared a commit; 4 and 5 waited behind the failure for the next one
    expect(seen).toHaveLength(2);
  });

  it('answers nobody before the group has committed, and fails the whole group when the commit fails', async () => {
    const { db } = database;
    await db.raw(`create trigger no_commit_of_13 before insert on notes when new.id = 13
      begin select raise(rollback, 'the commit failed'); end`);
    const answered: number[] = [];
    const write = (id: number) =>
      groupedTransaction(db, async (trx) => {
        await trx('notes').insert({ id, text: 'x' });
        return id;
      }).then((value) => {
        answered.push(value);
        return value;
      });
    const outcomes = await Promise.allSettled([11, 12, 13, 14].map(write));
    // RAISE(ROLLBACK) ends the shared transaction: 11 and 12, written before 13 in its group, are not kept and not
    // answered; 14, behind the failure, runs in the next group
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected', 'fulfilled']);
    expect(answered).toEqual([14]);
    expect((await db('notes').orderBy('id')).map((row: { id: number }) => row.id)).toEqual([14]);
  });

  it('keeps going after a group: later writes start a new one', async () => {
    const { db } = database;
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        [1, 2, 3].map((i) => groupedTransaction(db, (trx) => trx('notes').insert({ id: round * 10 + i, text: 'x' }))),
      );
    }
    expect(await db('notes').count({ n: '*' })).toEqual([{ n: 9 }]);
  });
});

describe('group commit through HTTP (SQLite)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService('sqlite');
  });
  afterAll(() => service.close());

  it('answers concurrent creates after fewer commits than creates, each kept or refused on its own', async () => {
    const commits: string[] = [];
    const listen = ({ sql }: { sql: string }) => {
      if (/^commit/i.test(sql)) commits.push(sql);
    };
    service.database.db.on('query', listen);
    const create = (i: number) =>
      http(service)
        .post(`${NS}/events`)
        .auth(...service.as('administrator'))
        .send({
          title: `Grouped ${i}`,
          start_date: '2030-01-01 10:00:00',
          end_date: '2030-01-01 12:00:00',
          ...(i === 7 ? { venue: 999_999 } : {}), // refused inside its transaction: no such venue
        });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => create(i)));
    service.database.db.off('query', listen);
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 20 }, (_, i) => (i === 7 ? 400 : 201)));
    const ids = answers.filter((a) => a.status === 201).map((a) => a.body.id as number);
    expect(new Set(ids).size).toBe(19);
    const titles = (await service.database.db('posts').where('title', 'like', 'Grouped %').pluck('title')).sort();
    expect(titles).toHaveLength(19);
    expect(titles).not.toContain('Grouped 7');
    expect(commits.length).toBeLessThan(19);
  });
});
