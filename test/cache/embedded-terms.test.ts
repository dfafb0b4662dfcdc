/**
 * Events are kept without their categories and tags, and each term apart under its own stamp
 * (src/resources/events/embedded-terms.ts): a write that moves a category's count renders that category again, not
 * every event that shows it, and the spliced answer is what a node without caches answers, byte for byte.
 */
import { ENGINES } from '../support/engines';
import { NS, startService, type TestService } from '../support/app';
import { closeAll, counterIn, read, SCRAPE_TOKEN, scrape, startNode, writeThrough, type Node } from './support';

describe.each(ENGINES)('categories and tags kept apart from the events on %s', (engine) => {
  let service: TestService;
  let cached: Node;
  let reference: Node;
  const events: number[] = [];
  let category = 0;
  beforeAll(async () => {
    service = await startService(engine, { METRICS_TOKEN: SCRAPE_TOKEN });
    category = (await send('post', 'categories', { name: 'Concerts' })).id;
    const tags = [
      (await send('post', 'tags', { name: 'zither' })).id,
      (await send('post', 'tags', { name: 'Alto' })).id,
    ];
    for (const day of ['2031-03-01', '2031-03-02', '2031-03-03']) events.push((await event(day, tags)).id);
    cached = await startNode(service, { renderCache: true, answerCache: false });
    reference = await startNode(service, { renderCache: false, answerCache: false });
  });
  afterAll(() => closeAll(service, cached, reference));

  /** A write through the service's own node, never the cached one. */
  const send = (method: 'post' | 'delete', path: string, body?: object) => writeThrough(service, method, path, body);
  function event(day: string, tags: number[] = []) {
    const times = { start_date: `${day} 19:00`, end_date: `${day} 21:00` };
    return send('post', 'events', { title: `On ${day}`, status: 'publish', ...times, categories: [category], tags });
  }
  const counters = async () => {
    const metrics = await scrape(cached);
    return {
      hits: counterIn(metrics, 'representation_cache_hits_total'),
      misses: counterIn(metrics, 'representation_cache_misses_total'),
    };
  };
  /** Reads every url on both nodes: the same bytes. Answers the cached node's. */
  const readAll = async (urls: string[]) => {
    const answers = [];
    for (const url of urls) {
      const [mine, theirs] = [await read(cached, url), await read(reference, url)];
      expect(mine).toEqual(theirs);
      answers.push(mine);
    }
    return answers;
  };
  const singles = () => events.map((id) => `${NS}/events/${id}`);
  const list = `${NS}/events?start_date=2031-01-01&end_date=2031-12-31`;

  it('renders a moved count once, for every event that shows it', async () => {
    await readAll([...singles(), list]);
    const before = await counters();
    await event('2031-04-01'); // moves the category's count; not in the reads below
    const [first] = await readAll(singles());
    expect(JSON.parse(first.body).categories[0].count).toBe(4);
    const after = await counters();
    expect(after.misses - before.misses).toBe(1); // the category, once; the events and tags are held
    expect(after.hits - before.hits).toBe(3 + 3 * 3 - 1); // three events, each with three terms
  });

  it('shows terms in the order of their names when a tag is renamed', async () => {
    const [first] = await readAll(singles());
    const tag = JSON.parse(first.body).tags[1];
    expect(JSON.parse(first.body).tags.map((t: { name: string }) => t.name)).toEqual(['Alto', 'zither']);
    await send('post', `tags/${tag.id}`, { name: 'accordion' }); // now first: the events' own bytes are still held
    const before = await counters();
    const [renamed] = await readAll([singles()[0]]);
    expect((await counters()).misses - before.misses).toBe(1);
    await readAll([list]);
    expect(JSON.parse(renamed.body).tags.map((t: { name: string }) => t.name)).toEqual(['accordion', 'Alto']);
  });

  it('leaves out a term deleted, and shows a password-protected event without terms', async () => {
    await readAll([list]);
    await send('delete', `categories/${category}?force=true`);
    const [gone] = await readAll([singles()[0]]);
    expect(JSON.parse(gone.body).categories).toEqual([]);
    await send('post', `events/${events[1]}`, { password: 'sesame' });
    const [listed] = await readAll([list]);
    const shown = (JSON.parse(listed.body) as { events: Array<{ id: number; tags: unknown[] }> }).events;
    expect(shown.map((e) => [e.id, e.tags.length])).toEqual([
      [events[0], 2],
      [events[1], 0],
      [events[2], 2],
      [expect.any(Number), 0],
    ]);
  });
});
