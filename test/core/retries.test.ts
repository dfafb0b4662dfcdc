/**
 * Writes that lose a race (src/db/dialect.ts `transactionWithRetry`, under the kernel's `write`), on every engine:
 * work that fails on a unique or foreign-key constraint, as when a concurrent writer took the slug first or removed
 * the record linked to, runs again in a fresh transaction and its failed attempts leave nothing behind; after its
 * attempts it gives up with the engine's error; any other error is not retried. The violations here are real ones,
 * raised by the engine.
 */
import { write } from '../../src/core/write';
import { isUniqueViolation, transactionWithRetry } from '../../src/db/dialect';
import type { Knex } from 'knex';
import type { Db } from '../../src/db/types';
import { ENGINES } from '../support/engines';
import { migratedDatabase } from './support';
import { insertTerm } from '../support/fixtures';

describe.each(ENGINES)('retries of writes that lose a race on %s', (engine) => {
  const database = migratedDatabase(engine);
  let db: Db;
  beforeAll(() => {
    db = database.db;
  });
  beforeEach(async () => {
    for (const table of ['changes', 'audit_log', 'term_relationships', 'terms']) await db(table).del();
  });

  /** A tag whose slug attempt `n` of a work may collide with. */
  const taken = async () => {
    const id = await insertTerm(db, 'post_tag', 'Taken');
    await db('terms').where({ id }).update({ slug: 'taken' });
    return id;
  };
  /** Inserts a tag; with the slug `taken`, a unique violation (the race lost to the writer of that tag). */
  const tag = (trx: Knex.Transaction, name: string, slug: string) =>
    trx('terms').insert({ taxonomy: 'post_tag', name, slug, language: 'en' });
  const names = async () => (await db('terms').orderBy('id').pluck('name')).filter((name) => name !== 'Taken');

  it('runs work that hit a unique violation again, and keeps only the attempt that succeeded', async () => {
    await taken();
    let attempts = 0;
    const result = await transactionWithRetry(db, async (trx) => {
      attempts++;
      await tag(trx, `Before the clash ${attempts}`, `before-${attempts}`);
      await tag(trx, `Mine ${attempts}`, attempts === 1 ? 'taken' : 'mine');
      return `attempt ${attempts}`;
    });
    expect(result).toBe('attempt 2');
    expect(attempts).toBe(2);
    expect(await names()).toEqual(['Before the clash 2', 'Mine 2']);
  });

  it('runs work that hit a foreign-key violation again (the linked record went away meanwhile)', async () => {
    const term = await insertTerm(db, 'post_tag', 'Linked');
    let attempts = 0;
    const result = await transactionWithRetry(db, async (trx) => {
      attempts++;
      await tag(trx, `Attempt ${attempts}`, `attempt-${attempts}`);
      if (attempts < 3) await trx('term_relationships').insert({ post_id: 987_654, term_id: term }); // no such post
      return attempts;
    });
    expect(result).toBe(3);
    expect(await names()).toEqual(['Linked', 'Attempt 3']);
    expect(await db('term_relationships').pluck('term_id')).toEqual([]);
  });

  it('retries a serialisation failure or a deadlock the engine reports (PostgreSQL 40001, 40P01)', async () => {
    const codes = ['40001', '40P01'];
    let attempts = 0;
    const result = await transactionWithRetry(db, async () => {
      const code = codes[attempts++];
      if (code) throw Object.assign(new Error(`lost: ${code}`), { code });
      return 'third time';
    });
    expect({ result, attempts }).toEqual({ result: 'third time', attempts: 3 });
  });

  it('gives up after its attempts with the engine error, leaving nothing behind', async () => {
    await taken();
    let attempts = 0;
    const losing = transactionWithRetry(
      db,
      async (trx) => {
        attempts++;
        await tag(trx, `Lost ${attempts}`, 'taken');
      },
      3,
    );
    expect(isUniqueViolation(await losing.catch((e: unknown) => e))).toBe(true);
    expect(attempts).toBe(3);
    expect(await names()).toEqual([]);
  });

  it('does not retry an error that a fresh attempt would not resolve', async () => {
    let attempts = 0;
    const notNull = transactionWithRetry(db, async (trx) => {
      attempts++;
      await trx('terms').insert({ taxonomy: 'post_tag', slug: 'nameless', language: 'en', name: null });
    });
    // the engine's NOT NULL violation (SQLite's error is no `Error` to jest's eye: its code, then)
    const code = ((await notNull.catch((e: unknown) => e)) as { code?: string } | undefined)?.code;
    expect(code).toBe(engine === 'postgres' ? '23502' : 'SQLITE_CONSTRAINT_NOTNULL');
    expect(attempts).toBe(1);
    attempts = 0;
    await expect(
      transactionWithRetry(db, async () => {
        attempts++;
        throw new Error('a rule refused it');
      }),
    ).rejects.toThrow('a rule refused it');
    expect(attempts).toBe(1);
  });

  describe('through the kernel', () => {
    const OPERATOR = { userId: null, login: 'operator', appPassword: null, address: null, via: 'cli' as const };
    const kept = async () => ({
      changes: await db('changes').orderBy('id').select('resource', 'record_id', 'action'),
      audit: await db('audit_log').orderBy('id').pluck('record_id'),
    });

    it('records the change and audit entry of the attempt that succeeded only', async () => {
      await taken();
      let attempts = 0;
      const id = await write(db, async (w) => {
        attempts++;
        const [row] = await tag(w.trx, `Raced ${attempts}`, `raced-${attempts}`).returning('id');
        w.audit(OPERATOR, 'create', 'tag', Number(row.id));
        w.change('tag', Number(row.id), 'created');
        if (attempts === 1) await tag(w.trx, 'Second', 'taken'); // announced, then lost the race
        return Number(row.id);
      });
      expect(attempts).toBe(2);
      expect(await names()).toEqual(['Raced 2']);
      expect(await kept()).toEqual({
        changes: [{ resource: 'tag', record_id: id, action: 'created' }],
        audit: [String(id)],
      });
    });

    it('gives up after eight attempts', async () => {
      await taken();
      let attempts = 0;
      const losing = write(db, async (w) => {
        attempts++;
        w.change('tag', 1, 'created');
        await tag(w.trx, 'Always late', 'taken');
      });
      expect(isUniqueViolation(await losing.catch((e: unknown) => e))).toBe(true);
      expect(attempts).toBe(8);
      expect(await kept()).toEqual({ changes: [], audit: [] });
    });
  });
});
