/**
 * A property test of the caches (representations and whole answers). Random writes (titles, venues, categories,
 * names, statuses, passwords, translations, creates, deletes) and steps of the clock interleaved with random reads
 * (single records and lists, some in the default window that moves with the day, some with relative dates; three
 * roles, two languages): every answer of a node with the caches is byte for byte the answer of a node without them,
 * and so is its conditional repeat (status and headers).
 */
import fc from 'fast-check';
import request from 'supertest';
import { ENGINES } from '../support/engines';
import { NS, startService, TEST_NOW, type TestService } from '../support/app';
import { clockStartingAt, manualClock, setClock } from '../../src/domain/clock';
import type { Role } from '../../src/users/roles';
import { closeAll, read, revalidate, counterIn, SCRAPE_TOKEN, scrape, startNode, type Node } from './support';

const WINDOW = 'start_date=2031-01-01&end_date=2031-12-31';
const ROLES: Array<Role | undefined> = [undefined, 'author', 'editor'];

type Step =
  | { kind: 'read'; url: number; role: number }
  | { kind: 'retitle' | 'trash' | 'protect' | 'translate'; event: number; word: number }
  | { kind: 'move'; event: number; venue: number }
  | { kind: 'categorise'; event: number; category: number }
  | { kind: 'rename-venue'; venue: number; word: number }
  | { kind: 'rename-category'; category: number; word: number }
  | { kind: 'venue-status'; venue: number; draft: boolean }
  | { kind: 'create'; category: number; venue: number; word: number }
  | { kind: 'tick'; hours: number };

const WORDS = ['jazz', 'choir', 'organ', 'dance', 'opera'];
const pick = fc.nat({ max: 17 });
/** Steps, reads weighing `reads` against each kind of write's 1. */
const steps = (reads: number): fc.Arbitrary<Step> =>
  fc.oneof(
    {
      weight: reads,
      arbitrary: fc.record({ kind: fc.constant('read' as const), url: pick, role: fc.nat({ max: 2 }) }),
    },
    fc.record({
      kind: fc.constantFrom('retitle', 'trash', 'protect', 'translate'),
      event: pick,
      word: fc.nat({ max: 4 }),
    }),
    fc.record({ kind: fc.constant('move' as const), event: pick, venue: pick }),
    fc.record({ kind: fc.constant('categorise' as const), event: pick, category: pick }),
    fc.record({ kind: fc.constant('rename-venue' as const), venue: pick, word: fc.nat({ max: 4 }) }),
    fc.record({ kind: fc.constant('rename-category' as const), category: pick, word: fc.nat({ max: 4 }) }),
    fc.record({ kind: fc.constant('venue-status' as const), venue: pick, draft: fc.boolean() }),
    fc.record({ kind: fc.constant('create' as const), category: pick, venue: pick, word: fc.nat({ max: 4 }) }),
    fc.record({ kind: fc.constant('tick' as const), hours: fc.integer({ min: 1, max: 30 }) }),
  ) as fc.Arbitrary<Step>;

describe.each(ENGINES)('the representation cache against none, on %s', (engine) => {
  let service: TestService;
  let cached: Node;
  let reference: Node;
  const events: number[] = [];
  const venues: number[] = [];
  const categories: number[] = [];
  const clock = manualClock(TEST_NOW);
  beforeAll(async () => {
    service = await startService(engine, { METRICS_TOKEN: SCRAPE_TOKEN });
    cached = await startNode(service, { renderCache: true });
    reference = await startNode(service, { renderCache: false });
    for (let i = 0; i < 3; i++) {
      venues.push((await send('post', 'venues', { venue: `Hall ${i}`, status: 'publish' })).id);
      categories.push((await send('post', 'categories', { name: `Kind ${i}` })).id);
    }
    for (let i = 0; i < 5; i++) await create(i % 3, i % 3, i);
    // events of the days after the clock's start: the default window leaves them behind as the days pass
    for (let day = 14; day <= 24; day += 2) {
      await send('post', 'events', {
        title: `near ${day}`,
        status: 'publish',
        start_date: `2027-06-${day} 10:00`,
        end_date: `2027-06-${day} 11:00`,
      });
    }
    setClock(clock);
  });
  afterAll(async () => {
    setClock(clockStartingAt(TEST_NOW));
    await closeAll(service, cached, reference);
  });

  async function send(method: 'post' | 'delete', path: string, body: object = {}) {
    const res = await request(cached.server)
      [method](`${NS}/${path}`)
      .auth(...service.as('editor'))
      .send(body);
    if (![200, 201, 410].includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  }
  async function create(category: number, venue: number, word: number) {
    const day = String((events.length % 27) + 1).padStart(2, '0');
    const event = await send('post', 'events', {
      title: `${WORDS[word % WORDS.length]} night ${events.length}`,
      status: 'publish',
      start_date: `2031-04-${day} 19:00`,
      end_date: `2031-04-${day} 21:00`,
      venue: venues[venue % venues.length],
      categories: [categories[category % categories.length]],
    });
    events.push(event.id);
  }
  const urls = () => [
    `events/${events[events.length - 1]}`,
    `events/${events[0]}`,
    `events/${events[1]}?i18n_language=fr`,
    `events?${WINDOW}`,
    `events?${WINDOW}&i18n_language=fr`,
    `events?${WINDOW}&categories=${categories[0]}`,
    `events?${WINDOW}&venue=${venues[1]}`,
    `events?${WINDOW}&search=jazz`,
    `events?${WINDOW}&per_page=2&page=2`,
    `events/${events[2]}`,
    `venues/${venues[0]}`,
    'venues?per_page=50',
    `categories?per_page=50&i18n_language=fr`,
    `categories/${categories[1]}`,
    'events',
    'events?per_page=2&page=2',
    'events?start_date=today&end_date=%2B3%20days',
    'events?starts_after=2027-06-17&strict_dates=1',
  ];

  async function run(s: Step) {
    const event = 'event' in s ? events[s.event % events.length] : 0;
    const venue = 'venue' in s ? venues[s.venue % venues.length] : 0;
    const category = 'category' in s ? categories[s.category % categories.length] : 0;
    const word = 'word' in s ? WORDS[s.word] : '';
    switch (s.kind) {
      case 'read': {
        const url = `${NS}/${urls()[s.url]}`;
        const role = ROLES[s.role];
        const auth = role && service.as(role);
        expect(await read(cached, url, auth)).toEqual(await read(reference, url, auth));
        // and again with its ETag: the cached node replays the answer it kept, the reference computes it
        const { etag } = (await revalidate(reference, url, undefined, auth)).headers;
        if (etag)
          expect(await revalidate(cached, url, etag, auth)).toEqual(await revalidate(reference, url, etag, auth));
        return;
      }
      case 'retitle':
        return send('post', `events/${event}`, { title: `${word} evening` });
      case 'trash':
        return send('delete', `events/${event}`);
      case 'protect':
        return send('post', `events/${event}`, { password: s.word % 2 ? 'sesame' : '' });
      case 'translate':
        return send('post', `events/${event}?i18n_language=fr`, { title: `soirée ${word}` });
      case 'move':
        return send('post', `events/${event}`, { venue });
      case 'categorise':
        return send('post', `events/${event}`, { categories: [category] });
      case 'rename-venue':
        return send('post', `venues/${venue}`, { venue: `${word} hall` });
      case 'rename-category':
        return send('post', `categories/${category}`, { name: `${word} ${category}` });
      case 'venue-status':
        return send('post', `venues/${venue}`, { status: s.draft ? 'draft' : 'publish' });
      case 'create':
        return create(s.category, s.venue, s.word);
      case 'tick':
        return clock.advance(s.hours * 3_600_000);
    }
  }

  const counter = async (name: string) => counterIn(await scrape(cached), name);
  const property = (reads: number, numRuns: number) =>
    fc.assert(
      fc.asyncProperty(fc.array(steps(reads), { minLength: 20, maxLength: 40 }), async (all) => {
        for (const s of all) await run(s);
      }),
      { numRuns, seed: 22, endOnFailure: true },
    );

  it('answers every read byte for byte as a node without the cache does', async () => {
    await property(6, 8);
    // the caches were at work (writes are frequent here, so misses outnumber hits: the point is the comparison)
    expect(await counter('representation_cache_hits_total')).toBeGreaterThan(50);
    expect(await counter('answer_cache_hits_total')).toBeGreaterThan(0);
  });

  it('and so when reads outnumber writes, kept answers outliving the writes that cannot change them', async () => {
    const proved = await counter('answer_cache_proved_total');
    await property(40, 4);
    // answers kept before a write were served after it on their proofs (D147), and read as without the cache
    expect((await counter('answer_cache_proved_total')) - proved).toBeGreaterThan(2);
    // and, over both properties, some with their events' categories spliced anew after a count moved (D157)
    expect(await counter('answer_cache_renewed_total')).toBeGreaterThan(0);
  });
});
