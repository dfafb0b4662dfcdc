/**
 * Match sets brought up to date from the change feed (src/search/predicate.ts, src/db/memo.ts): a search's set of
 * matching records, found once, is patched after each write from the records the write announced, rather than found
 * again. Random writes of every kind that moves what a search finds (titles, translations, protected text, trash and
 * deletes, creates, venue and tag names) interleave with searches on a node whose sets stay warm; every answer is
 * compared byte for byte with that of a node started afresh, whose sets are all found from nothing.
 */
import fc from 'fast-check';
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';
import { countQueries } from '../support/query-count';
import type { Role } from '../../src/users/roles';
import { expectAsFresh, read, serviceNode } from './support';

const WORDS = ['jazz', 'choir', 'organ'];
const WINDOW = 'start_date=2031-01-01&end_date=2031-12-31';
/** The searches compared, with who asks: each kind's rule, a short fragment, a language, protected text. */
const SEARCHES: Array<[string, Role | undefined]> = [
  [`events?${WINDOW}&search=jazz`, undefined],
  [`events?${WINDOW}&search=jazz`, 'author'],
  [`events?${WINDOW}&search=jazz%20night&i18n_language=fr`, undefined],
  [`events?${WINDOW}&search=ch`, undefined],
  ['venues?search=jazz%20hall', undefined],
  ['tags?search=organ', undefined],
];

type Step =
  | { kind: 'retitle' | 'translate' | 'protect' | 'trash' | 'delete'; event: number; word: number }
  | { kind: 'create' | 'rename-venue' | 'rename-tag'; target: number; word: number };

const pick = fc.nat({ max: 11 });
const word = fc.nat({ max: WORDS.length - 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constantFrom('retitle', 'translate', 'protect', 'trash', 'delete'),
      event: pick,
      word,
    }),
  },
  fc.record({ kind: fc.constantFrom('create', 'rename-venue', 'rename-tag'), target: pick, word }),
) as fc.Arbitrary<Step>;

describe.each(ENGINES)('match sets patched from the change feed, on %s', (engine) => {
  let service: TestService;
  const warm = serviceNode(() => service);
  const events: number[] = [];
  const venues: number[] = [];
  const tags: number[] = [];
  beforeAll(async () => {
    service = await startService(engine);
    for (let i = 0; i < 3; i++) {
      venues.push((await send('post', 'venues', { venue: `${WORDS[i]} hall`, status: 'publish' })).id);
      tags.push((await send('post', 'tags', { name: `${WORDS[i]} ${i}` })).id);
    }
    for (let i = 0; i < 8; i++) await create(i, i);
  });
  afterAll(() => service.close());

  async function send(method: 'post' | 'delete', path: string, body: object = {}) {
    const res = await http(service)
      [method](`${NS}/${path}`)
      .auth(...service.as('editor'))
      .send(body);
    if (![200, 201].includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  }
  async function create(target: number, w: number) {
    const day = String((events.length % 27) + 1).padStart(2, '0');
    const event = await send('post', 'events', {
      title: `${WORDS[w % WORDS.length]} night ${events.length}`,
      status: 'publish',
      start_date: `2031-04-${day} 19:00`,
      end_date: `2031-04-${day} 21:00`,
      venue: venues[target % venues.length],
      tags: [tags[target % tags.length]],
    });
    events.push(event.id);
  }

  async function run(s: Step) {
    const w = WORDS[s.word];
    if ('target' in s) {
      if (s.kind === 'create') return create(s.target, s.word);
      if (s.kind === 'rename-venue') return send('post', `venues/${venues[s.target % 3]}`, { venue: `${w} hall` });
      return send('post', `tags/${tags[s.target % 3]}`, { name: `${w} ${s.target}` });
    }
    const event = events[s.event % events.length];
    switch (s.kind) {
      case 'retitle':
        return send('post', `events/${event}`, { title: `${w} evening` });
      case 'translate':
        return send('post', `events/${event}?i18n_language=fr`, { title: `${w} night en français` });
      case 'protect':
        return send('post', `events/${event}`, { password: s.word ? 'sesame' : '', description: `<p>${w}</p>` });
      case 'trash':
        return send('delete', `events/${event}`).catch(() => undefined); // trashing twice is refused: no write
      case 'delete':
        if (events.length > 4) events.splice(events.indexOf(event), 1);
        return send('delete', `events/${event}?force=true`);
    }
  }

  /** Every search on the warm node, then on a node started now (its sets found from nothing): the same bytes. */
  const compare = () =>
    expectAsFresh(
      service,
      warm,
      SEARCHES.map(([url, role]) => [`${NS}/${url}`, role] as const),
    );

  it('patches a set after a write it does not concern without finding it again', async () => {
    const [url] = SEARCHES[0];
    await read(warm, `${NS}/${url}`);
    await send('post', `events/${events[1]}`, { title: 'organ evening' });
    const { sql } = await countQueries(() => read(warm, `${NS}/${url}`));
    const finds = sql.filter((text) => /search_fts match|string_agg\(record_id/i.test(text));
    expect(finds).toEqual([]);
    expect(sql.some((text) => /from [`"]changes[`"]/i.test(text))).toBe(true);
    await compare();
  });

  it('finds a set once for the languages nothing is translated into, then keeps each to its own rule', async () => {
    const languages = ['en', 'fr', 'de'];
    const url = (language: string) => `${NS}/events?${WINDOW}&search=choir&i18n_language=${language}`;
    const finds = (sql: string[]) => sql.filter((text) => /search_fts match|string_agg\(record_id/i.test(text));
    const { sql } = await countQueries(async () => {
      for (const language of languages) await read(warm, url(language));
    });
    expect(finds(sql)).toHaveLength(1);
    // a French title that matches: the French set holds the event, the others do not
    await send('post', `events/${events[0]}?i18n_language=fr`, { title: 'choir du soir' });
    const found = async (language: string) =>
      (JSON.parse((await read(warm, url(language))).body) as { events: Array<{ id: number }> }).events;
    for (const language of languages)
      expect((await found(language)).some(({ id }) => id === events[0])).toBe(language === 'fr');
    await expectAsFresh(
      service,
      warm,
      languages.map((language) => [url(language), undefined] as const),
    );
  });

  it('answers every search as a node that finds its sets afresh, after random writes', async () => {
    await compare();
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 12 }), async (steps) => {
        for (const s of steps) {
          await run(s);
          for (const [url, role] of SEARCHES) await read(warm, `${NS}/${url}`, role && service.as(role));
        }
        await compare();
      }),
      { numRuns: 6, seed: 31, endOnFailure: true },
    );
  });
});
