/**
 * Term counts moved by what each write changed (src/core/term-counts.ts), on every engine: random writes through
 * the services (events created with categories, tags and every status, some as series; links and statuses changed,
 * series changed for all their occurrences, trash, restore, permanent delete, terms deleted, scheduled events
 * published, several writes to one event at once), and after each one every term's stored count equals a full
 * recount of its published events. A write path that changes links or a status without telling the kernel first
 * leaves a count wrong here.
 */
import { ApiError } from '../../src/core/errors';
import { loadConfig } from '../../src/config';
import type { Services, Writer } from '../../src/core/write';
import type { Db } from '../../src/db/types';
import { manualClock, setClock } from '../../src/domain/clock';
import { publishDue } from '../../src/publishing/publish';
import { eventById } from '../../src/resources/events/access';
import { createEvent, deleteEvent, updateEvent, type EventWrite } from '../../src/resources/events/service';
import { deleteTerm } from '../../src/resources/terms/service';
import { CATEGORIES, TAGS } from '../../src/resources/terms/taxonomies';
import { createUser } from '../../src/users/repository';
import { TEST_NOW } from '../support/app';
import { ENGINES } from '../support/engines';
import { insertTerm } from '../support/fixtures';
import { migratedDatabase } from './support';

/** Writes per engine: each checked against a full recount. */
const STEPS = 120;
const STATUSES = ['publish', 'draft', 'private', 'pending', 'future'] as const;

/** A small seeded generator (mulberry32): a failure names its seed and step, and repeats. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const below = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[below(items.length)];
  const some = <T>(items: readonly T[]): T[] => items.filter(() => next() < 0.35);
  return { next, below, pick, some };
}

/** The terms whose stored count is not the number of their published events, with both numbers. */
async function wrongCounts(db: Db): Promise<Array<{ id: number; stored: number; recounted: number }>> {
  const published = db('term_relationships as tr')
    .join('events as e', 'e.post_id', 'tr.post_id')
    .whereRaw('tr.term_id = t.id')
    .andWhere('e.status', 'publish')
    .count('*');
  const rows: Array<{ id: unknown; count: unknown; recounted: unknown }> = await db('terms as t')
    .orderBy('t.id')
    .select('t.id', 't.count', published.as('recounted'));
  return rows
    .map((row) => ({ id: Number(row.id), stored: Number(row.count), recounted: Number(row.recounted) }))
    .filter((row) => row.stored !== row.recounted);
}

describe.each(ENGINES)('term counts under random writes on %s', (engine) => {
  const database = migratedDatabase(engine);
  const clock = manualClock(TEST_NOW);
  let db: Db;
  let services: Services;
  let writer: Writer;
  beforeAll(async () => {
    db = database.db;
    setClock(clock);
    services = { db, config: loadConfig({ SITE_TIMEZONE: 'UTC' }) };
    const admin = await createUser(db, 'counts-admin', 'administrator', 'correct horse battery staple');
    writer = { caller: { id: Number(admin.id), login: admin.login, role: 'administrator' }, language: 'en' };
  });

  it('keeps every count equal to a full recount after each write', async () => {
    const seed = 20261128;
    const r = random(seed);
    const categories: number[] = [];
    const tags: number[] = [];
    for (let i = 0; i < 4; i++) categories.push(await insertTerm(db, 'tribe_events_cat', `Category ${i}`));
    for (let i = 0; i < 4; i++) tags.push(await insertTerm(db, 'post_tag', `Tag ${i}`));
    let made = 0;
    /** Publication dates ahead of the clock: the `future` events the publishing job then publishes. */
    const ahead = () => new Date(clock.now().getTime() + (1 + r.below(5)) * 3_600_000).toISOString();
    const stamp = (iso: string) => iso.slice(0, 19).replace('T', ' ');
    const statusBody = (): EventWrite => {
      const status = r.pick(STATUSES);
      return (status === 'future' ? { status, date: stamp(ahead()) } : { status }) as EventWrite;
    };
    const links = (): EventWrite => ({ categories: r.some(categories), tags: r.some(tags) }) as EventWrite;
    const events = async (): Promise<number[]> =>
      (await db('posts').where({ type: 'event' }).orderBy('id').pluck('id')).map(Number);

    const operations: Record<string, () => Promise<unknown>> = {
      async create() {
        const day = `2027-07-${String(1 + r.below(27)).padStart(2, '0')}`;
        const body = {
          title: `Event ${++made}`,
          start_date: `${day} 10:00:00`,
          end_date: `${day} 12:00:00`,
          ...statusBody(),
          ...links(),
          ...(r.next() < 0.25 ? { recurrence: { rrule: `FREQ=DAILY;COUNT=${2 + r.below(3)}` } } : {}),
        } as EventWrite;
        return createEvent(services, writer, body);
      },
      async relink() {
        const id = r.pick(await events());
        return updateEvent(services, writer, await eventById(db, id), links(), { scope: r.pick(['this', 'all']) });
      },
      async status() {
        const id = r.pick(await events());
        const scope = r.pick(['this', 'all', 'following'] as const);
        return updateEvent(services, writer, await eventById(db, id), statusBody(), { scope });
      },
      async trash() {
        const id = r.pick(await events());
        return deleteEvent(services, writer.caller, await eventById(db, id), { scope: r.pick(['this', 'all']) });
      },
      async restore() {
        const trashed = (await db('posts').where({ type: 'event', status: 'trash' }).pluck('id')).map(Number);
        if (!trashed.length) return;
        const row = await eventById(db, r.pick(trashed));
        return updateEvent(services, writer, row, { status: r.pick(['draft', 'publish']) } as EventWrite);
      },
      async delete() {
        const id = r.pick(await events());
        const scope = r.pick(['this', 'all', 'following'] as const);
        return deleteEvent(services, writer.caller, await eventById(db, id), { force: true, scope });
      },
      async deleteTerm() {
        const [list, info, taxonomy] =
          r.next() < 0.5 ? [categories, CATEGORIES, 'tribe_events_cat' as const] : [tags, TAGS, 'post_tag' as const];
        const id = list.splice(r.below(list.length), 1)[0];
        await deleteTerm(services, info, writer.caller, id);
        list.push(await insertTerm(db, taxonomy, `Term ${++made}`));
      },
      async concurrent() {
        // at once: grouped in one transaction on SQLite (each write reads the one before it as its before),
        // in parallel on PostgreSQL (the second waits on the post's lock, then reads the first one's after)
        const row = await eventById(db, r.pick(await events()));
        const writes = [statusBody(), links(), statusBody()].map((body) => updateEvent(services, writer, row, body));
        const settled = await Promise.allSettled(writes);
        const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
        if (failed) throw failed.reason;
      },
      async publishDue() {
        clock.set(new Date(clock.now().getTime() + 2 * 3_600_000));
        return publishDue(db);
      },
    };
    const weights: Array<[string, number]> = [
      ['create', 5],
      ['relink', 4],
      ['status', 4],
      ['trash', 2],
      ['restore', 2],
      ['delete', 1],
      ['deleteTerm', 1],
      ['publishDue', 1],
      ['concurrent', 2],
    ];
    const names = weights.flatMap(([name, weight]) => Array<string>(weight).fill(name));

    const done: string[] = [];
    for (let step = 0; step < STEPS; step++) {
      const name = (await events()).length ? r.pick(names) : 'create';
      try {
        await operations[name]();
        done.push(name);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        done.push(`${name} refused (${err.status})`); // rolled back: the counts stay as they were
      }
      expect({ seed, step, name, wrong: await wrongCounts(db) }).toEqual({ seed, step, name, wrong: [] });
    }
    // the run did change counts, and went through every kind of write
    expect(Number((await db('terms').sum({ n: 'count' }))[0].n)).toBeGreaterThan(0);
    for (const [name] of weights) expect(done).toContain(name);
  });
});
