/**
 * Kept answers outlive the writes that cannot change them (src/cache/proofs.ts, D147), and only those. A node with
 * the caches reads; writes arrive through another node. After each write, every read is what a node without caches
 * answers, byte for byte, and the cached node says whether it served the kept answer on its proof.
 */
import { ENGINES } from '../support/engines';
import { NS, startService, type TestService } from '../support/app';
import { countQueries } from '../support/query-count';
import { closeAll, read, counterIn, SCRAPE_TOKEN, scrape, startNode, writeThrough, type Node } from './support';

const WINDOW = 'start_date=2031-01-01&end_date=2031-12-31';

describe.each(ENGINES)('proofs of kept answers on %s', (engine) => {
  let service: TestService;
  let cached: Node;
  let reference: Node;
  const ids = { jazz: 0, organ: 0, choir: 0, late: 0, concerts: 0, talks: 0 };
  beforeAll(async () => {
    service = await startService(engine, { METRICS_TOKEN: SCRAPE_TOKEN });
    ids.concerts = (await send('post', 'categories', { name: 'Concerts' })).id;
    ids.talks = (await send('post', 'categories', { name: 'Talks' })).id;
    ids.jazz = (await event('Jazz night', '2031-03-01', ids.concerts)).id;
    ids.organ = (await event('Organ recital', '2031-03-02', ids.concerts)).id;
    ids.choir = (await event('Choir evening', '2031-03-03', ids.talks)).id;
    ids.late = (await event('Late show', '2031-03-04', ids.concerts)).id;
    cached = await startNode(service, { renderCache: true });
    reference = await startNode(service, { renderCache: false, answerCache: false });
  });
  afterAll(() => closeAll(service, cached, reference));

  /** A write through the service's own node, never the cached one. */
  const send = (method: 'post' | 'delete', path: string, body?: object) => writeThrough(service, method, path, body);
  function event(title: string, day: string, category: number) {
    const times = { start_date: `${day} 19:00`, end_date: `${day} 21:00` };
    return send('post', 'events', { title, status: 'publish', ...times, categories: [category] });
  }
  const proved = async () => counterIn(await scrape(cached), 'answer_cache_proved_total');
  /** Answers served on their proofs, and how many kept answers each reason retired, so far. */
  const outcomes = async () => {
    const metrics = await scrape(cached);
    const retired = metrics.matchAll(/^answer_cache_retired_total\{reason="(\w+)"\} (\d+)/gm);
    return {
      proved: counterIn(metrics, 'answer_cache_proved_total'),
      renewed: counterIn(metrics, 'answer_cache_renewed_total'),
      retired: new Map([...retired].map((m) => [m[1], Number(m[2])])),
    };
  };
  /** Reads `url` on the cached node until it is kept (a miss, then a hit), as the reference answers it. */
  const keep = async (url: string) => {
    for (let i = 0; i < 3; i++)
      expect(await read(cached, `${NS}/${url}`)).toEqual(await read(reference, `${NS}/${url}`));
  };
  /**
   * The next read of `url` is the reference's answer; whether the kept one was served on its proof, and if not, what
   * retired it (as `/metrics` counts it).
   */
  const next = async (url: string) => {
    const before = await outcomes();
    const answer = await read(cached, `${NS}/${url}`);
    expect(answer).toEqual(await read(reference, `${NS}/${url}`));
    const after = await outcomes();
    const retired = [...after.retired].filter(([reason, n]) => n > (before.retired.get(reason) ?? 0));
    const reasons = retired.map(([reason]) => reason);
    return {
      body: answer.body,
      proved: after.proved > before.proved,
      renewed: after.renewed > before.renewed,
      retired: reasons,
    };
  };

  it('serves a single read after writes to other records, and not after a write to it', async () => {
    await keep(`events/${ids.jazz}`);
    await send('post', `events/${ids.choir}`, { title: 'Choir evening, again' });
    expect(await next(`events/${ids.jazz}`)).toMatchObject({
      proved: true,
      retired: [],
      body: expect.stringContaining('Jazz'),
    });
    await send('post', `events/${ids.jazz}`, { title: 'Jazz night, moved' });
    expect(await next(`events/${ids.jazz}`)).toMatchObject({
      proved: false,
      retired: ['stamps'],
      body: expect.stringContaining('moved'),
    });
  });

  it('renews a single read and a list whose category count moved with another event, not one renamed', async () => {
    const list = `events?start_date=2031-03-01&end_date=2031-03-31&categories=${ids.concerts}`;
    await keep(`events/${ids.organ}`);
    await keep(list);
    const added = await event('Brass band', '2031-05-01', ids.concerts); // outside the list's window
    const single = await next(`events/${ids.organ}`);
    expect(single).toMatchObject({ proved: false, renewed: true, retired: [] });
    expect(JSON.parse(single.body).categories[0].count).toBe(4);
    expect(await next(list)).toMatchObject({ proved: false, renewed: true, retired: [] });
    await send('post', `categories/${ids.concerts}`, { name: 'Concerts at night' }); // its place among terms moves
    expect(await next(`events/${ids.organ}`)).toMatchObject({ renewed: false, retired: ['stamps'] });
    await send('post', `categories/${ids.concerts}`, { name: 'Concerts' });
    await send('delete', `events/${added.id}`);
  });

  it('serves a list after writes to events it does not hold, and not after one joins it', async () => {
    const list = `events?${WINDOW}&categories=${ids.talks}`;
    await keep(list);
    await send('post', `events/${ids.organ}`, { title: 'Organ recital, revised' });
    expect(await next(list)).toMatchObject({ proved: true });
    await send('post', `events/${ids.late}`, { categories: [ids.talks] }); // joins
    expect(await next(list)).toMatchObject({ proved: false, body: expect.stringContaining('Late show') });
    await send('post', `events/${ids.late}`, { categories: [ids.concerts] }); // and leaves, from the page
    expect(await next(list)).toMatchObject({ proved: false, body: expect.not.stringContaining('Late show') });
  });

  it('does not serve a page whose list lost an event from another page', async () => {
    const first = `events?${WINDOW}&categories=${ids.concerts}&per_page=1`;
    await keep(first);
    await send('post', `events/${ids.choir}`, { title: 'Choir evening, third time' }); // not in the list
    expect(await next(first)).toMatchObject({ proved: true });
    // leaves the list from page 3, moved out of the window: no count moves, nothing on page 1 changes but the total
    await send('post', `events/${ids.late}`, { start_date: '2032-03-04 19:00', end_date: '2032-03-04 21:00' });
    expect(await next(first)).toMatchObject({ proved: false, retired: ['members'] });
    await send('post', `events/${ids.late}`, { start_date: '2031-03-04 19:00', end_date: '2031-03-04 21:00' });
    expect(await next(first)).toMatchObject({ proved: false });
  });

  it('proves a page with a counted total in a fixed number of statements', async () => {
    const first = `events?${WINDOW}&categories=${ids.concerts}&per_page=1`;
    await keep(first);
    await send('post', `events/${ids.choir}`, { title: 'Choir evening, fourth time' }); // not in the list
    let answer = { status: 0, body: '' };
    const before = await proved();
    const { sql } = await countQueries(async () => {
      answer = await read(cached, `${NS}/${first}`);
    });
    expect(await proved()).toBe(before + 1);
    expect(answer).toEqual(await read(reference, `${NS}/${first}`));
    // where the data stands; the feed since the answer (horizon and changes, one statement); the stamps shown; the
    // counted set brought up to date from the feed (one statement again, then the ids checked again); the data version
    // once more. Where the data stands is read once, not again for the set.
    expect(sql).toHaveLength(6);
  });

  it('proves the answers kept at one position after the same writes on one read of the feed', async () => {
    const [organ, choir] = [`events/${ids.organ}`, `events/${ids.choir}`];
    await keep(organ);
    await keep(choir);
    await send('post', `events/${ids.late}`, { title: 'Late show, revised' }); // shown by neither
    /** The statements of the next read of `url`, which its proof serves. */
    const statementsOf = async (url: string) => {
      const before = await proved();
      let answer = { status: 0, body: '' };
      const { sql } = await countQueries(async () => {
        answer = await read(cached, `${NS}/${url}`);
      });
      expect(answer).toEqual(await read(reference, `${NS}/${url}`));
      expect(await proved()).toBe(before + 1);
      return sql;
    };
    const first = await statementsOf(organ);
    // where the data stands, its stamps and the data version once more: the feed since was read for the first
    expect(await statementsOf(choir)).toHaveLength(first.length - 1);
  });

  it('does not serve a page after an event joined the list before it while another left it', async () => {
    const first = `events?${WINDOW}&per_page=1`;
    await send('post', `events/${ids.choir}`, { start_date: '2030-03-03 19:00', end_date: '2030-03-03 21:00' });
    await keep(first);
    // the total stays: only the event that joined, now in the list, tells that page 1 moved
    await send('post', `events/${ids.late}`, { start_date: '2032-03-04 19:00', end_date: '2032-03-04 21:00' });
    await send('post', `events/${ids.choir}`, { start_date: '2031-02-03 19:00', end_date: '2031-02-03 21:00' });
    expect(await next(first)).toMatchObject({ proved: false, body: expect.stringContaining('Choir') });
    await send('post', `events/${ids.late}`, { start_date: '2031-03-04 19:00', end_date: '2031-03-04 21:00' });
    await send('post', `events/${ids.choir}`, { start_date: '2031-03-03 19:00', end_date: '2031-03-03 21:00' });
  });

  it('does not serve a short page, which tells its total, after an event joined the list', async () => {
    const whole = `events?${WINDOW}`;
    await send('post', `events/${ids.choir}`, { start_date: '2030-03-03 19:00', end_date: '2030-03-03 21:00' });
    await keep(whole);
    await send('post', `events/${ids.choir}`, { start_date: '2031-03-03 19:00', end_date: '2031-03-03 21:00' });
    expect(await next(whole)).toMatchObject({ proved: false, body: expect.stringContaining('Choir') });
  });

  it('serves a search after writes to events that do not match it, and not after one comes to', async () => {
    const search = `events?${WINDOW}&search=recital`;
    await keep(search);
    await send('post', `events/${ids.choir}`, { title: 'Choir evening, fourth time' });
    expect(await next(search)).toMatchObject({ proved: true });
    await send('post', `events/${ids.choir}`, { title: 'Choir recital' });
    expect(await next(search)).toMatchObject({
      proved: false,
      retired: ['members'],
      body: expect.stringContaining('Choir recital'),
    });
  });

  it('does not serve a list of events after a write to another kind of record', async () => {
    const list = `events?${WINDOW}&categories=${ids.talks}`;
    await keep(list);
    await send('post', `categories/${ids.concerts}`, { description: 'Music' });
    expect(await next(list)).toMatchObject({ proved: false, retired: ['members'] });
  });
});
