/**
 * A property test of series writes. Random sequences of them (creates with a rule, bounded or open-ended; edits of
 * one occurrence, the following ones or all; new rules with excluded dates; deletes with each scope; the daily
 * extension of open-ended series), each followed by a read of every event the sequence made and of every series'
 * occurrences: each answer of a node with the representation cache (warm from the reads before the write) is byte
 * for byte the answer of a node without it, and every event whose answer the write changed is in the change feed.
 */
import fc from 'fast-check';
import request from 'supertest';
import { ENGINES } from '../support/engines';
import { NS, startService, TEST_NOW, type TestService } from '../support/app';
import { clockStartingAt, manualClock, setClock } from '../../src/domain/clock';
import { extendHorizons } from '../../src/resources/series/horizon';
import { read, startNode, type Node } from './support';

const WIDE = 'start_date=2027-01-01&end_date=2029-12-31&per_page=100';
const WORDS = ['choir', 'organ', 'dance', 'opera'];
const SCOPES = ['this', 'following', 'all'] as const;
type Scope = (typeof SCOPES)[number];

type Step =
  | { kind: 'create'; count: number; daily: boolean; open: boolean }
  | { kind: 'retitle'; series: number; member: number; scope: Scope; word: number }
  | { kind: 'retime'; series: number; member: number; scope: Exclude<Scope, 'this'>; hour: number }
  | { kind: 'rule'; series: number; member: number; scope: Exclude<Scope, 'this'>; count: number; skip: number }
  | { kind: 'remove'; series: number; member: number; scope: Scope }
  | { kind: 'extend'; days: number };

const pick = fc.nat({ max: 9 });
const at = { series: pick, member: pick };
const create = fc.record({
  kind: fc.constant('create' as const),
  count: fc.integer({ min: 2, max: 5 }),
  daily: fc.boolean(),
  open: fc.boolean(),
});
const extend = fc.record({ kind: fc.constant('extend' as const), days: fc.integer({ min: 1, max: 3 }) });
const retitle = (scope: Scope) =>
  fc.record({ kind: fc.constant('retitle' as const), ...at, scope: fc.constant(scope), word: fc.nat({ max: 3 }) });
const remove = (scope: Scope) => fc.record({ kind: fc.constant('remove' as const), ...at, scope: fc.constant(scope) });
const retime = (scope: Exclude<Scope, 'this'>) =>
  fc.record({
    kind: fc.constant('retime' as const),
    ...at,
    scope: fc.constant(scope),
    hour: fc.integer({ min: 8, max: 20 }),
  });
const rule = (scope: Exclude<Scope, 'this'>) =>
  fc.record({
    kind: fc.constant('rule' as const),
    ...at,
    scope: fc.constant(scope),
    count: fc.integer({ min: 2, max: 5 }),
    skip: pick,
  });
const WIDE_SCOPES = ['following', 'all'] as const;
/** Every kind of series write, with each scope it takes. */
const KINDS: Array<fc.Arbitrary<Step>> = [
  create,
  extend,
  ...SCOPES.map(retitle),
  ...SCOPES.map(remove),
  ...WIDE_SCOPES.map(retime),
  ...WIDE_SCOPES.map(rule),
];
/** One write of each kind and scope and a few more, in a random order. */
const sequence: fc.Arbitrary<Step[]> = fc
  .tuple(fc.tuple(...KINDS), fc.array(fc.oneof(...KINDS), { maxLength: 1 }))
  .chain(([each, more]) => fc.shuffledSubarray([...each, ...more], { minLength: each.length + more.length }));

interface Listed {
  id: number;
  start_date: string;
}

describe.each(ENGINES)('series writes, the representation cache and the change feed, on %s', (engine) => {
  let service: TestService;
  let cached: Node;
  let reference: Node;
  const clock = manualClock(TEST_NOW);
  beforeAll(async () => {
    setClock(clock);
    service = await startService(engine, { SITE_TIMEZONE: 'UTC', RECURRENCE_HORIZON_MONTHS: '1' });
    cached = await startNode(service, { renderCache: true });
    reference = await startNode(service, { renderCache: false });
  });
  afterAll(async () => {
    setClock(clockStartingAt(TEST_NOW));
    await cached.close();
    await reference.close();
    await service.close();
  });

  const admin = () => service.as('administrator');
  /** What this run made: every event seen, every series seen, the last answer of each event to an editor. */
  let events = new Set<number>();
  let series = new Set<number>();
  let last = new Map<number, string>();
  let made = 0;

  async function send(method: 'post' | 'delete', path: string, query: object, body: object = {}) {
    const res = await request(cached.server)
      [method](`${NS}/${path}`)
      .auth(...admin())
      .query(query)
      .send(body);
    if (![200, 201].includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  }
  /** The live occurrences of a series, in order (as the administrator lists them). */
  async function occurrences(id: number): Promise<Listed[]> {
    const res = await read(reference, `${NS}/events/occurrences/${id}?${WIDE}`, admin());
    return res.status === 200 ? (JSON.parse(res.body).events as Listed[]) : [];
  }
  /** The occurrence a step names: a live one of a series this run made (none when all are gone). */
  async function target(s: { series: number; member: number }, scope: Scope) {
    const ids = [...series];
    for (let i = 0; i < ids.length; i++) {
      const seriesId = ids[(s.series + i) % ids.length];
      const members = (await occurrences(seriesId)).filter((m) => scope !== 'this' || m.id !== seriesId);
      if (members.length) return members[s.member % members.length];
    }
    return undefined;
  }

  async function createSeries({ count, daily, open }: Extract<Step, { kind: 'create' }>) {
    made += 1;
    const day = `2027-07-${String((made % 28) + 1).padStart(2, '0')}`;
    const created = await send(
      'post',
      'events',
      {},
      {
        title: `Series ${made}`,
        status: 'publish',
        start_date: open ? '2027-06-20 10:00:00' : `${day} 18:00:00`,
        end_date: open ? '2027-06-20 11:00:00' : `${day} 19:00:00`,
        recurrence: { rrule: open ? 'FREQ=WEEKLY' : `FREQ=${daily ? 'DAILY' : 'WEEKLY'};COUNT=${count}` },
      },
    );
    series.add(created.id);
  }

  /** The kinds of write the sequences made (with their scope), so the test can say it covered each. */
  const writesMade = new Set<string>();
  async function run(s: Step) {
    if (s.kind === 'create') return createSeries(s);
    if (s.kind === 'extend') {
      clock.advance(s.days * 86_400_000);
      if (await extendHorizons(service.database.db, service.config)) writesMade.add('extend');
      return;
    }
    const at = await target(s, s.scope);
    if (!at) return;
    writesMade.add(`${s.kind}:${s.scope}`);
    const scope = { recurrence_scope: s.scope };
    switch (s.kind) {
      case 'retitle':
        return send('post', `events/${at.id}`, scope, { title: `${WORDS[s.word]} ${made}` });
      case 'retime': {
        const hour = String(s.hour).padStart(2, '0');
        const date = at.start_date.slice(0, 10);
        return send('post', `events/${at.id}`, scope, {
          start_date: `${date} ${hour}:00:00`,
          end_date: `${date} ${hour}:30:00`,
        });
      }
      case 'rule': {
        const skipped = (await occurrences(at.id)).map((m) => m.start_date)[s.skip % 3];
        const recurrence = { rrule: `FREQ=WEEKLY;COUNT=${s.count}`, exdates: skipped ? [skipped] : [] };
        return send('post', `events/${at.id}`, scope, { recurrence });
      }
      case 'remove':
        return send('delete', `events/${at.id}`, scope);
    }
  }

  const cursorNow = async () => (await request(cached.server).get(`${NS}/changes`)).body.next_cursor as string;
  async function announcedSince(cursor: string): Promise<Set<number>> {
    const res = await request(cached.server)
      .get(`${NS}/changes`)
      .auth(...admin())
      .query({ cursor, limit: 500 });
    expect(res.body.has_more).toBe(false);
    return new Set((res.body.changes as Array<{ resource: string; id: number }>).map((c) => c.id));
  }

  /** Every event and series seen, read on both nodes: the same answers, and those that changed announced. */
  async function sweep(announced: Set<number> | undefined) {
    for (const id of [...series]) {
      const url = `${NS}/events/occurrences/${id}?${WIDE}`;
      expect(await read(cached, url)).toEqual(await read(reference, url));
      for (const member of await occurrences(id)) events.add(member.id);
    }
    for (const id of [...series, ...events]) events.add(id);
    for (const id of events) {
      const url = `${NS}/events/${id}`;
      const answer = await read(reference, url, service.as('editor'));
      expect({ id, ...(await read(cached, url, service.as('editor'))) }).toEqual({ id, ...answer });
      const body = `${answer.status} ${answer.body}`;
      const seriesId = JSON.parse(answer.body).recurrence?.series_id;
      if (seriesId) series.add(seriesId);
      if (announced && last.has(id) && last.get(id) !== body) {
        expect({ id, announced: announced.has(id) }).toEqual({ id, announced: true });
      }
      last.set(id, body);
    }
  }

  it('answers every event as a node without the cache does, and announces every event a write changes', async () => {
    await fc.assert(
      fc.asyncProperty(sequence, async (steps) => {
        events = new Set();
        series = new Set();
        last = new Map();
        await createSeries({ kind: 'create', count: 4, daily: false, open: true });
        await createSeries({ kind: 'create', count: 4, daily: true, open: false });
        await sweep(undefined);
        for (const s of steps) {
          const cursor = await cursorNow();
          await run(s);
          await sweep(await announcedSince(cursor));
        }
      }),
      { numRuns: 2, seed: 29, endOnFailure: true },
    );
    const scoped = (kind: string, scopes: readonly string[]) => scopes.map((scope) => `${kind}:${scope}`);
    expect([...writesMade].sort()).toEqual(
      expect.arrayContaining([
        'extend',
        ...scoped('retitle', SCOPES),
        ...scoped('remove', SCOPES),
        ...scoped('rule', ['following', 'all']),
        ...scoped('retime', ['following', 'all']),
      ]),
    );
  });
});
