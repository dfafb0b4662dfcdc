/**
 * Representation stamps (src/core/stamps.ts), on every engine: `raiseStamps` raises the stamp of each post and term
 * its changes name once, however often they name it (an event announced twice, a term as category and as tag),
 * leaves every other record alone, and takes ids of records that are gone without complaint; through the kernel,
 * a write raises the stamps of the records it announces once per write, except those it created.
 */
import { raiseStamps } from '../../src/core/stamps';
import { write } from '../../src/core/write';
import type { Db } from '../../src/db/types';
import { ENGINES } from '../support/engines';
import { migratedDatabase } from './support';
import { insertEvent, insertTerm, insertVenue } from '../support/fixtures';

describe.each(ENGINES)('stamps on %s', (engine) => {
  const database = migratedDatabase(engine);
  let db: Db;
  beforeAll(() => {
    db = database.db;
  });

  /** Every post's and term's stamp, by table and id. */
  const stamps = async () => {
    const of = async (table: 'posts' | 'terms') =>
      Object.fromEntries(
        (await db(table).select('id', 'stamp')).map((row) => [Number(row.id), Number(row.stamp)] as const),
      );
    return { posts: await of('posts'), terms: await of('terms') };
  };
  /** `before` with these posts' and terms' stamps one higher. */
  const raised = (
    before: Awaited<ReturnType<typeof stamps>>,
    { posts = [], terms = [] }: { posts?: number[]; terms?: number[] },
  ) => ({
    posts: { ...before.posts, ...Object.fromEntries(posts.map((id) => [id, before.posts[id] + 1])) },
    terms: { ...before.terms, ...Object.fromEntries(terms.map((id) => [id, before.terms[id] + 1])) },
  });

  it('raises each named post and term once, in one write, whatever names it and how often', async () => {
    const [event, other] = [await insertEvent(db), await insertEvent(db)];
    const venue = await insertVenue(db, 'Hall');
    const term = await insertTerm(db, 'post_tag', 'Both');
    const untouched = await insertTerm(db, 'tribe_events_cat', 'Untouched');
    const before = await stamps();
    await db.transaction((trx) =>
      raiseStamps(trx, [
        { resource: 'event', ids: [event, event] },
        { resource: 'venue', ids: [venue] },
        { resource: 'event', ids: [event] },
        { resource: 'category', ids: [term] },
        { resource: 'tag', ids: [term] },
      ]),
    );
    const after = await stamps();
    expect(after).toEqual(raised(before, { posts: [event, venue], terms: [term] }));
    expect(after.posts[other]).toBe(before.posts[other]);
    expect(after.terms[untouched]).toBe(before.terms[untouched]);
  });

  it('takes ids of records that are gone (deleted, never made), many at once, without complaint', async () => {
    const event = await insertEvent(db);
    const term = await insertTerm(db, 'post_tag', 'Kept');
    const before = await stamps();
    const gone = Array.from({ length: 1_200 }, (_, i) => 500_000 + i); // more than one statement's batch of 500
    await db.transaction((trx) =>
      raiseStamps(trx, [
        { resource: 'event', ids: [...gone, event] },
        { resource: 'tag', ids: [term, ...gone] },
        { resource: 'organizer', ids: [] },
      ]),
    );
    expect(await stamps()).toEqual(raised(before, { posts: [event], terms: [term] }));
  });

  it('through the kernel: once per record per write, for what it announces only', async () => {
    const [event, deleted] = [await insertEvent(db), await insertEvent(db)];
    const term = await insertTerm(db, 'tribe_events_cat', 'Announced');
    const before = await stamps();
    await write(db, async (w) => {
      await w.trx('posts').where({ id: deleted }).delete();
      w.change('event', event, 'updated');
      w.change('event', [event, event], 'updated');
      w.change('category', term, 'updated');
      w.change('event', deleted, 'deleted');
    });
    const { [deleted]: _gone, ...posts } = before.posts;
    expect(await stamps()).toEqual(raised({ ...before, posts }, { posts: [event], terms: [term] }));
    // the feed has every announcement; the stamp moved once
    expect(await db('changes').where({ record_id: event }).pluck('action')).toEqual(['updated', 'updated', 'updated']);

    const again = await stamps();
    await write(db, async (w) => w.change('event', event, 'updated'));
    expect(await stamps()).toEqual(raised(again, { posts: [event] }));
  });

  it('leaves the stamps of records the write created: no representation of them can be held yet', async () => {
    const event = await insertEvent(db);
    const before = await stamps();
    const made = await write(db, async (w) => {
      const id = await insertEvent(w.trx as unknown as Db);
      w.change('event', id, 'created');
      w.change('event', event, 'updated');
      return id;
    });
    const expected = raised(before, { posts: [event] });
    expect(await stamps()).toEqual({ ...expected, posts: { ...expected.posts, [made]: 0 } });
    // once made, its next write raises it as any other
    await write(db, async (w) => w.change('event', made, 'updated'));
    expect((await stamps()).posts[made]).toBe(1);
  });
});
