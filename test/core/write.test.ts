/**
 * The write kernel (src/core/write.ts) on its own, on every engine, on a migrated database without a service: a
 * write's work tells the `Write` what it touched, and the kernel then writes the search documents, the term counts,
 * the audit entries, the raised stamps, the change record and the outbox, in that order, in the work's transaction:
 * all of it commits, or (an error in the work or in any later step) none of it. The precondition comes first: 412
 * and nothing written when `If-Match` / `If-Unmodified-Since` does not hold.
 */
import type { Actor } from '../../src/core/audit';
import { ApiError } from '../../src/core/errors';
import { currentVersionTag } from '../../src/core/preconditions';
import { write, type Write } from '../../src/core/write';
import type { Db } from '../../src/db/types';
import { TEST_NOW } from '../support/app';
import { ENGINES } from '../support/engines';
import { migratedDatabase } from './support';
import { insertEvent, insertTerm, insertWebhook } from '../support/fixtures';

const OPERATOR: Actor = { userId: null, login: 'operator', appPassword: null, address: null, via: 'cli' };
const NOW_TEXT = '2027-06-15 12:00:00'; // TEST_NOW as stored

/** Everything the kernel writes about these records besides their own rows. */
async function trail(db: Db, postId: number, termIds: number[]) {
  const num = (value: unknown) => Number(value);
  const post = await db('posts').where({ id: postId }).first('title', 'stamp', 'version');
  const terms = await db('terms').whereIn('id', termIds).orderBy('id').select('id', 'count', 'stamp');
  return {
    post: { title: post.title, stamp: num(post.stamp), version: num(post.version) },
    terms: terms.map((t) => ({ id: num(t.id), count: num(t.count), stamp: num(t.stamp) })),
    search: (await db('search_docs').where({ record_id: postId }).whereNot('kind', 'term').select('kind', 'f0')).map(
      (d) => `${d.kind}:${d.f0}`,
    ),
    audit: (await db('audit_log').orderBy('id').select('operation', 'resource', 'record_id', 'login', 'changes')).map(
      (a) => ({ ...a, changes: JSON.parse(a.changes) }),
    ),
    changes: (await db('changes').orderBy('id').select('id', 'resource', 'record_id', 'action', 'modified_utc')).map(
      (c) => ({ ...c, id: num(c.id), record_id: num(c.record_id) }),
    ),
    deliveries: (
      await db('webhook_deliveries').orderBy('id').select('webhook_id', 'type', 'record_id', 'change_id', 'state')
    ).map((d) => ({ ...d, webhook_id: num(d.webhook_id), record_id: num(d.record_id), change_id: num(d.change_id) })),
  };
}

describe.each(ENGINES)('the write kernel on %s', (engine) => {
  const database = migratedDatabase(engine);
  let db: Db;
  beforeAll(() => {
    db = database.db;
  });
  beforeEach(async () => {
    for (const table of ['webhook_deliveries', 'webhooks', 'changes', 'audit_log', 'search_docs'])
      await db(table).del();
  });

  /** A published event in category `kept`, a tag `added` it is not in yet, and a subscription to everything. */
  async function world() {
    const kept = await insertTerm(db, 'tribe_events_cat', 'Kept');
    const added = await insertTerm(db, 'post_tag', 'Added');
    const event = await insertEvent(db, 'publish', [kept]);
    const hook = await insertWebhook(db, ['*']);
    return { kept, added, event, hook };
  }

  /** The work of an update: the event renamed and tagged, with everything it touched announced to the kernel. */
  const renameAndTag = (event: number, tag: number) => async (w: Write) => {
    await w.countTermsOf([event]);
    await w.trx('posts').where({ id: event }).update({ title: 'Renamed Lantern Walk' });
    await w.trx('term_relationships').insert({ post_id: event, term_id: tag });
    w.search('posts', [event]);
    w.audit(OPERATOR, 'update', 'event', event, { title: { old: 'Fixture', new: 'Renamed Lantern Walk' } });
    w.change('event', event, 'updated');
    return 'the work answered';
  };

  it('writes the search documents, counts, audit entry, stamps, change and outbox of the work', async () => {
    const { kept, added, event, hook } = await world();
    const before = await trail(db, event, [kept, added]);
    expect(before.terms).toEqual([
      { id: kept, count: 1, stamp: expect.any(Number) },
      { id: added, count: 0, stamp: expect.any(Number) },
    ]);

    expect(await write(db, renameAndTag(event, added))).toBe('the work answered');

    const after = await trail(db, event, [kept, added]);
    expect(after.post).toEqual({ title: 'Renamed Lantern Walk', stamp: before.post.stamp + 1, version: 1 });
    expect(after.search).toEqual(['event:renamed lantern walk\u0001\u0001']);
    expect(after.terms).toEqual([
      { id: kept, count: 1, stamp: before.terms[0].stamp }, // its count did not move: its stamp neither
      { id: added, count: 1, stamp: before.terms[1].stamp + 1 },
    ]);
    expect(after.audit).toEqual([
      {
        operation: 'update',
        resource: 'event',
        record_id: String(event),
        login: 'operator',
        changes: { title: { old: 'Fixture', new: 'Renamed Lantern Walk' } },
      },
    ]);
    expect(after.changes).toEqual([
      { id: expect.any(Number), resource: 'event', record_id: event, action: 'updated', modified_utc: NOW_TEXT },
    ]);
    expect(after.deliveries).toEqual([
      { webhook_id: hook, type: 'event.updated', record_id: event, change_id: after.changes[0].id, state: 'pending' },
    ]);
  });

  it('takes the steps in order: precondition, work, search, counts, audit, stamps, change, outbox', async () => {
    const { added, event } = await world();
    const statements: string[] = [];
    const seen = ({ sql }: { sql: string }) => statements.push(sql.replace(/[`"]/g, ''));
    db.on('query', seen);
    try {
      const guarded = { table: 'posts' as const, id: event, expect: { ifMatch: '*' as const } };
      await write(db, renameAndTag(event, added), { precondition: guarded });
    } finally {
      db.off('query', seen);
    }
    const step = (pattern: RegExp) => statements.findIndex((sql) => pattern.test(sql));
    const steps = [
      step(/^select .* from posts .*where id = /i), // the precondition's row
      step(/^update posts set title/i), // the work
      step(/^insert into search_docs/i),
      step(/^update terms set count/i),
      step(/^insert into audit_log/i),
      step(/^update posts set stamp/i),
      step(/^insert into changes/i),
      step(/^insert into webhook_deliveries/i),
    ];
    expect(steps.every((at) => at >= 0)).toBe(true);
    expect([...steps].sort((a, b) => a - b)).toEqual(steps);
  });

  it("moves a count by what the write changed, without walking the term's other links", async () => {
    const { kept, added, event } = await world();
    // a category of many published events (stored directly, its count with them)
    const many = 2000;
    const now = '2027-06-15 12:00:00';
    const posts = Array.from({ length: many }, (_, n) => ({
      type: 'event',
      status: 'publish',
      slug: `many-${kept}-${n}`,
      language: 'en',
      title: 'Many',
      date_utc: now,
      modified_utc: now,
    }));
    const ids: number[] = [];
    for (let i = 0; i < many; i += 200)
      ids.push(
        ...(
          await db('posts')
            .insert(posts.slice(i, i + 200))
            .returning('id')
        ).map((row) => Number(row.id)),
      );
    const times = { start_local: now, end_local: now, start_utc: now, end_utc: now, timezone: 'UTC' };
    for (let i = 0; i < many; i += 200) {
      const batch = ids.slice(i, i + 200);
      await db('events').insert(batch.map((post_id) => ({ post_id, status: 'publish', ...times })));
      await db('term_relationships').insert(batch.map((post_id) => ({ post_id, term_id: added })));
    }
    await db('terms').where({ id: added }).update({ count: many });
    const statements: string[] = [];
    const seen = ({ sql }: { sql: string }) => statements.push(sql.replace(/[`"]/g, ''));
    db.on('query', seen);
    try {
      await write(db, renameAndTag(event, added));
    } finally {
      db.off('query', seen);
    }
    const counts = await db('terms').whereIn('id', [kept, added]).orderBy('id').pluck('count');
    expect(counts.map(Number)).toEqual([1, many + 1]);
    // the links read are the written event's only: no statement counts a term's events
    const reads = statements.filter((sql) => /from term_relationships/i.test(sql));
    expect(reads.length).toBeGreaterThan(0);
    for (const sql of reads) expect(sql).toMatch(/where tr\.post_id in \(/i);
    expect(statements.filter((sql) => /term_id = t\.id/i.test(sql))).toEqual([]);
  });

  it('recounts from all the links the terms a write names so (a change it could not see before)', async () => {
    const { kept, event } = await world();
    await db('terms').where({ id: kept }).update({ count: 7 }); // a count gone wrong
    await write(db, async (w) => {
      await w.countTermsOf([event]);
      w.recountTerms([kept]);
    });
    expect(Number((await db('terms').where({ id: kept }).first('count')).count)).toBe(1);
  });

  it('rolls everything back when the work throws after announcing what it touched', async () => {
    const { kept, added, event } = await world();
    const before = await trail(db, event, [kept, added]);
    const failing = write(db, async (w) => {
      await renameAndTag(event, added)(w);
      throw new Error('the work failed');
    });
    await expect(failing).rejects.toThrow('the work failed');
    expect(await trail(db, event, [kept, added])).toEqual(before);
    expect(await db('term_relationships').where({ post_id: event }).pluck('term_id')).toEqual([kept]);
  });

  it('rolls everything back when a later step fails (the outbox, after the change row was inserted)', async () => {
    const { kept, added, event } = await world();
    await insertWebhook(db, ['*']);
    await db('webhooks').insert({
      url: 'https://receiver.example/broken',
      events: 'not a JSON list', // a corrupt subscription: the outbox step cannot read it
      active: true,
      secret: 'unused',
      created_utc: NOW_TEXT,
      modified_utc: NOW_TEXT,
    });
    const before = await trail(db, event, [kept, added]);
    await expect(write(db, renameAndTag(event, added))).rejects.toThrow(SyntaxError);
    expect(await trail(db, event, [kept, added])).toEqual(before);
    expect(before.changes).toEqual([]);
  });

  describe('the precondition', () => {
    it('refuses with 412 and the current tag when If-Match names another version, and writes nothing', async () => {
      const { kept, added, event } = await world();
      const before = await trail(db, event, [kept, added]);
      const work = jest.fn(renameAndTag(event, added));
      const refused = write(db, work, { precondition: { table: 'posts', id: event, expect: { ifMatch: ['1-7'] } } });
      await expect(refused).rejects.toBeInstanceOf(ApiError);
      await expect(refused).rejects.toMatchObject({
        status: 412,
        code: 'rest_precondition_failed',
        data: { etag: `"${event}-1"` },
      });
      expect(work).not.toHaveBeenCalled();
      expect(await trail(db, event, [kept, added])).toEqual(before);
    });

    it('lets the write through when If-Match names the current version, or any (`*`)', async () => {
      const { added, event } = await world();
      const tag = (await currentVersionTag(db, 'posts', event)) as string;
      expect(tag).toBe(`${event}-1`);
      const guarded = { table: 'posts' as const, id: event, expect: { ifMatch: ['0-0', tag] } };
      expect(await write(db, renameAndTag(event, added), { precondition: guarded })).toBe('the work answered');
      const any = { table: 'posts' as const, id: event, expect: { ifMatch: '*' as const } };
      expect(await write(db, async () => 'again', { precondition: any })).toBe('again');
      expect((await trail(db, event, [])).changes).toHaveLength(1); // the first write's only
    });

    it('compares If-Unmodified-Since with the row, to the second', async () => {
      const { kept, added, event } = await world(); // modified at TEST_NOW
      const guarded = (instant: string) => ({
        precondition: { table: 'posts' as const, id: event, expect: { ifUnmodifiedSince: new Date(instant) } },
      });
      const before = await trail(db, event, [kept, added]);
      const refused = write(db, renameAndTag(event, added), guarded('2027-06-15T11:59:59Z'));
      await expect(refused).rejects.toMatchObject({ status: 412 });
      expect(await trail(db, event, [kept, added])).toEqual(before);
      await expect(write(db, renameAndTag(event, added), guarded(TEST_NOW))).resolves.toBe('the work answered');
    });

    it('leaves a record that is gone to the work (its own not-found answer)', async () => {
      const work = jest.fn(async () => 'not found, said the work');
      const gone = { table: 'terms' as const, id: 987_654, expect: { ifMatch: ['987654-1'] } };
      await expect(write(db, work, { precondition: gone })).resolves.toBe('not found, said the work');
      expect(work).toHaveBeenCalledTimes(1);
    });
  });
});
