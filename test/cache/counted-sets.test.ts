/**
 * Counted sets brought up to date from the change feed (src/db/counts.ts): a list's total, counted once as the set
 * of ids it counts, is patched after each write from the records the write announced, rather than counted again.
 * Random writes of everything that moves an event in or out of a list (its dates, status, categories, tags, venue,
 * organizers, featured flag, title, trash, deletes, creates, a category deleted or moved under another) interleave
 * with reads of short pages (so that every total is counted) on a node whose sets stay warm; every answer is compared
 * byte for byte with that of a node started afresh, whose totals are all counted from nothing.
 */
import fc from 'fast-check';
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';
import { countQueries } from '../support/query-count';
import type { Role } from '../../src/users/roles';
import { expectAsFresh, read, serviceNode } from './support';

const WINDOW = 'start_date=2031-04-01&end_date=2031-04-30&per_page=2';
/** Events of 2030 matching `jazz`, enough for its match set to be bound as one set (search/predicate.ts). */
const COMMON = 1_010;
const pick = fc.nat({ max: 11 });

type Step =
  | {
      kind: 'move' | 'status' | 'categories' | 'tags' | 'venue' | 'organizer' | 'feature' | 'retitle';
      event: number;
      n: number;
    }
  | { kind: 'trash' | 'delete'; event: number; n: number }
  | { kind: 'create' | 'delete-category' | 'reparent'; event: number; n: number };

const step: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom(
    'move',
    'status',
    'categories',
    'tags',
    'venue',
    'organizer',
    'feature',
    'retitle',
    'trash',
    'delete',
    'create',
    'delete-category',
    'reparent',
  ),
  event: pick,
  n: pick,
}) as fc.Arbitrary<Step>;

describe.each(ENGINES)('counted sets patched from the change feed, on %s', (engine) => {
  let service: TestService;
  const warm = serviceNode(() => service);
  const events: number[] = [];
  const venues: number[] = [];
  const organizers: number[] = [];
  const tags: number[] = [];
  const categories: number[] = [];

  let reads = 0;
  /** A window's end moved on each whole read of the lists (`readAll`), so its set is counted anew. */
  const newWindowEnd = () =>
    `2031-${String((reads % 12) + 1).padStart(2, '0')}-${String((reads % 28) + 1).padStart(2, '0')}`;

  /** The lists compared, with who asks: every filter a set is kept for, and an author who sees their drafts. */
  function lists(): Array<[string, Role | undefined]> {
    return [
      [`events?${WINDOW}`, undefined],
      [`events?${WINDOW}&status=publish,draft,private`, 'editor'],
      [`events?${WINDOW}&status=publish,draft`, 'author'],
      [`events?${WINDOW}&categories=${categories[0]}`, undefined],
      [`events?${WINDOW}&categories=${categories[1]},${categories[2]}`, undefined],
      [`events?${WINDOW}&tags=${tags[0]}`, undefined],
      [`events?${WINDOW}&venue=${venues[0]}`, undefined],
      [`events?${WINDOW}&organizer=${organizers[1]}`, undefined],
      [`events?${WINDOW}&featured=true`, undefined],
      [`events?${WINDOW}&search=jazz`, undefined],
      [`events?${WINDOW}&search=jazz&categories=${categories[0]}`, undefined],
      [
        `events?start_date=2030-01-01&end_date=2031-12-31&per_page=2&search=jazz&categories=${categories[1]}`,
        undefined,
      ],
      // a window wider than the category's links
      [`events?start_date=2030-01-01&end_date=2031-12-31&per_page=2&categories=${categories[2]}`, undefined],
      // a window not asked before on each read: a common word's set found from the events' times, patched
      [`events?start_date=2030-01-01&end_date=${newWindowEnd()}&per_page=2&search=jazz`, undefined],
      [`events?start_date=2030-05-01&end_date=${newWindowEnd()}&per_page=2&categories=${categories[0]}`, undefined],
    ];
  }

  beforeAll(async () => {
    service = await startService(engine);
    for (let i = 0; i < 3; i++) {
      venues.push((await send('post', 'venues', { venue: `Hall ${i}`, status: 'publish' })).id);
      organizers.push((await send('post', 'organizers', { organizer: `Host ${i}`, status: 'publish' })).id);
      tags.push((await send('post', 'tags', { name: `tag ${i}` })).id);
    }
    categories.push((await send('post', 'categories', { name: 'music' })).id);
    for (let i = 1; i < 4; i++) {
      const parent = i === 1 ? { parent: categories[0] } : {};
      categories.push((await send('post', 'categories', { name: `category ${i}`, ...parent })).id);
    }
    for (let i = 0; i < 10; i++) await create(i);
    // a common word: past a thousand matches a list's set is found from the match set and the terms' linked events
    for (let i = 0; i < COMMON; i++) {
      const date = `2030-0${(i % 9) + 1}-${String((i % 28) + 1).padStart(2, '0')}`;
      await send('post', 'events', {
        title: `jazz matinee ${i}`,
        status: 'publish',
        start_date: `${date} 15:00`,
        end_date: `${date} 16:00`,
        categories: [categories[i % 2]],
      });
    }
  }, 120_000);
  afterAll(() => service.close());

  async function send(method: 'post' | 'delete', path: string, body: object = {}, role: Role = 'editor') {
    const res = await http(service)
      [method](`${NS}/${path}`)
      .auth(...service.as(role))
      .send(body);
    if (![200, 201].includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  }
  const day = (n: number) => `2031-0${n % 3 === 2 ? 5 : 4}-${String((n % 27) + 1).padStart(2, '0')}`;
  async function create(n: number) {
    const event = await send(
      'post',
      'events',
      {
        title: `${n % 2 ? 'jazz' : 'folk'} night ${events.length}`,
        status: n % 4 === 3 ? 'draft' : 'publish',
        start_date: `${day(n)} 19:00`,
        end_date: `${day(n)} 21:00`,
        venue: venues[n % 3],
        organizer: [organizers[n % 3]],
        categories: [categories[n % categories.length]],
        tags: [tags[n % 3]],
        featured: n % 5 === 0,
      },
      n % 3 ? 'editor' : 'author',
    );
    events.push(event.id);
  }

  async function run({ kind, event: i, n }: Step) {
    const event = events[i % events.length];
    const update = (body: object) => send('post', `events/${event}`, body);
    switch (kind) {
      case 'move':
        return update({ start_date: `${day(n)} 10:00`, end_date: `${day(n)} 11:00` });
      case 'status':
        return update({ status: ['publish', 'draft', 'private', 'pending'][n % 4] });
      case 'categories':
        return update({ categories: categories.slice(n % categories.length, (n % categories.length) + 2) });
      case 'tags':
        return update({ tags: n % 4 === 3 ? [] : [tags[n % 3]] });
      case 'venue':
        return update({ venue: venues[n % 3] });
      case 'organizer':
        return update({ organizer: [organizers[n % 3]] });
      case 'feature':
        return update({ featured: n % 2 === 0 });
      case 'retitle':
        return update({ title: `${n % 2 ? 'jazz' : 'folk'} evening` });
      case 'trash':
        return send('delete', `events/${event}`).catch(() => undefined); // trashing twice is refused: no write
      case 'delete':
        if (events.length > 6) events.splice(events.indexOf(event), 1);
        return send('delete', `events/${event}?force=true`);
      case 'create':
        return create(n);
      case 'delete-category': {
        // the last category goes and comes back (a new id): the events it held lose it
        const last = categories.pop() as number;
        await send('delete', `categories/${last}?force=true`);
        categories.push((await send('post', 'categories', { name: `category ${events.length}` })).id);
        return;
      }
      case 'reparent':
        return send('post', `categories/${categories[3]}`, { parent: n % 2 ? categories[0] : 0 });
    }
  }

  /** Every list on the warm node, then on a node started now (its totals counted from nothing): the same bytes. */
  const compare = () =>
    expectAsFresh(
      service,
      warm,
      lists().map(([url, role]) => [`${NS}/${url}`, role] as const),
    );

  async function readAll() {
    reads++;
    for (const [url, role] of lists()) await read(warm, `${NS}/${url}`, role && service.as(role));
  }

  it('patches a total after a write without counting it again', async () => {
    const url = `${NS}/events?${WINDOW}&categories=${categories[0]}`;
    const before = await read(warm, url);
    expect(Number(before.total)).toBeGreaterThan(2);
    await send('post', `events/${events[1]}`, { title: 'organ evening' });
    const { sql } = await countQueries(() => read(warm, url));
    expect(sql.filter((text) => /group_concat\(|string_agg\(/i.test(text))).toEqual([]);
    expect(sql.some((text) => /from [`"]changes[`"]/i.test(text))).toBe(true);
    expect((await read(warm, url)).total).toBe(before.total);
    await compare();
  });

  it('counts a common word with a category from sets, and patches them after a write', async () => {
    const url = `${NS}/events?start_date=2030-01-01&end_date=2031-12-31&per_page=2&search=jazz`;
    expect(Number((await read(warm, url)).total)).toBeGreaterThan(COMMON);
    const inCategory = `${url}&categories=${categories[1]}`;
    const before = Number((await read(warm, inCategory)).total);
    expect(before).toBeGreaterThan(COMMON / 2 - 10);
    await send('post', `events/${events[0]}`, { title: 'jazz brunch', categories: [categories[1]] });
    // a window not counted before: its set is found anew, from the category's linked events patched, not read again
    const later = inCategory.replace('2031-12-31', '2031-12-30');
    const { sql } = await countQueries(() => read(warm, later));
    const linksRead = sql.filter(
      (text) => /term_relationships/i.test(text) && /group_concat\(|string_agg\(/i.test(text),
    );
    expect(linksRead).toEqual([]);
    // nor the window's ids: the events' times, held in memory, are patched too (resources/events/times.ts)
    expect(sql.filter((text) => /group_concat\(|string_agg\(/i.test(text))).toEqual([]);
    expect(Number((await read(warm, later)).total)).toBe(before + 1);
    await expectAsFresh(service, warm, [
      [inCategory, undefined],
      [later, undefined],
    ]);
    await compare();
  });

  it('answers every list as a node that counts afresh, after random writes', async () => {
    await readAll();
    await compare();
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 10 }), async (steps) => {
        for (const s of steps) {
          await run(s);
          await readAll();
        }
        await compare();
      }),
      { numRuns: 6, seed: 43, endOnFailure: true },
    );
  });
});
