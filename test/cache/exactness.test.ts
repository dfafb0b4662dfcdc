/**
 * The representation cache is exact. Every kind of write is reflected in the very next read of every
 * representation that shows it, on the node that wrote and on another node, each with a warm cache of its own;
 * every answer is byte for byte what a node without the cache answers.
 */
import { ENGINES } from '../support/engines';
import { http, NS, startService, TEST_NOW, type TestService } from '../support/app';
import { clockStartingAt, setClock } from '../../src/domain/clock';
import type { Role } from '../../src/users/roles';
import { read, startNode, type Node } from './support';

describe.each(ENGINES)('the representation cache on %s', (engine) => {
  let service: TestService;
  let writer: Node; // writes go here (a node with a warm cache of its own)
  let reader: Node; // another node, its cache warmed before each write
  let reference: Node; // renders every answer afresh
  beforeAll(async () => {
    service = await startService(engine);
    writer = await startNode(service, { renderCache: true });
    reader = await startNode(service, { renderCache: true });
    reference = await startNode(service, { renderCache: false });
  });
  afterAll(async () => {
    for (const node of [writer, reader, reference]) await node.close();
    await service.close();
  });

  const as = (role: Role) => service.as(role);
  const post = async (path: string, body: object, role: Role = 'editor') => {
    const res = await http(service)
      .post(`${NS}/${path}`)
      .auth(...as(role))
      .send(body);
    expect([200, 201]).toContain(res.status);
    return res.body;
  };
  /** A write through the writer node (its cache warm too). */
  const write = async (method: 'post' | 'put' | 'delete', path: string, body: object = {}, role: Role = 'editor') => {
    const { default: request } = await import('supertest');
    const res = await request(writer.server)
      [method](`${NS}/${path}`)
      .auth(...as(role))
      .send(body);
    expect([200, 201]).toContain(res.status);
    return res.body;
  };

  type Seen = [url: string, role?: Role];
  /** Reads each representation on both caching nodes (warming them). */
  const warm = async (seen: Seen[]) => {
    for (const [url, role] of seen) {
      for (const node of [writer, reader]) await read(node, `${NS}/${url}`, role && as(role));
    }
  };
  /** The next read on each caching node is the reference's answer, byte for byte; returns the reference bodies. */
  const agree = async (seen: Seen[]) => {
    const bodies: string[] = [];
    for (const [url, role] of seen) {
      const expected = await read(reference, `${NS}/${url}`, role && as(role));
      for (const node of [writer, reader]) expect(await read(node, `${NS}/${url}`, role && as(role))).toEqual(expected);
      bodies.push(expected.body);
    }
    return bodies;
  };
  /** Warm, write, then every read agrees with the reference and shows `shown`. */
  const reflected = async (seen: Seen[], change: () => Promise<unknown>, shown: string | RegExp) => {
    await warm(seen);
    await change();
    for (const body of await agree(seen)) expect(body).toMatch(shown);
  };

  const WINDOW = 'start_date=2031-01-01&end_date=2031-12-31';
  let n = 0;
  /** A published event in 2031 with a venue, an organizer, a category and a tag, and the reads that show it. */
  const fixture = async () => {
    n += 1;
    const venue = await post('venues', { venue: `Hall ${n}`, status: 'publish' });
    const organizer = await post('organizers', { organizer: `Choir ${n}`, status: 'publish' });
    const category = await post('categories', { name: `Concerts ${n}` });
    const tag = await post('tags', { name: `Evening ${n}` });
    const event = await post('events', {
      title: `Concert ${n}`,
      status: 'publish',
      start_date: `2031-03-${String(n).padStart(2, '0')} 19:00`,
      end_date: `2031-03-${String(n).padStart(2, '0')} 21:00`,
      venue: venue.id,
      organizer: [organizer.id],
      categories: [category.id],
      tags: [tag.id],
    });
    const reads: Seen[] = [
      [`events/${event.id}`],
      [`events/${event.id}`, 'editor'],
      [`events/${event.id}?i18n_language=fr`],
      [`events?${WINDOW}`],
      [`events?${WINDOW}&categories=${category.id}`, 'author'],
      [`events?${WINDOW}&venue=${venue.id}&i18n_language=fr`],
    ];
    return { venue, organizer, category, tag, event, reads };
  };

  it('an event write', async () => {
    const { event, reads } = await fixture();
    await reflected(reads, () => write('post', `events/${event.id}`, { title: 'Renamed concert' }), /Renamed concert/);
  });

  it('a write to its venue, and to its organizer', async () => {
    const { venue, organizer, reads } = await fixture();
    await reflected(reads, () => write('post', `venues/${venue.id}`, { venue: 'The New Hall' }), /The New Hall/);
    await reflected(reads, () => write('post', `organizers/${organizer.id}`, { phone: '+49 30 1234' }), /1234/);
  });

  it('a write to its category and to its tag', async () => {
    const { category, tag, reads } = await fixture();
    await reflected(reads, () => write('post', `categories/${category.id}`, { name: 'Choral' }), /Choral/);
    await reflected(reads, () => write('post', `tags/${tag.id}`, { name: 'Late' }), /"Late"/);
  });

  it("another event's write that moves the count its categories show", async () => {
    const { category, reads } = await fixture();
    const counted = () => post('events', { title: 'Another', status: 'publish', categories: [category.id], ...day });
    const day = { start_date: '2031-05-01 10:00', end_date: '2031-05-01 11:00' };
    await reflected(reads, counted, /"count":2/);
  });

  it('a translation', async () => {
    const { event, reads } = await fixture();
    await reflected(
      reads.filter(([url]) => url.includes('i18n_language=fr')),
      () => write('post', `events/${event.id}?i18n_language=fr`, { title: 'Concert du soir' }),
      /Concert du soir/,
    );
  });

  it('a password, which blanks the event for those who cannot unlock it', async () => {
    const { event, reads } = await fixture();
    await warm(reads);
    await write('post', `events/${event.id}`, { password: 'sesame', description: 'Secret programme' });
    const [anonymous, editor] = await agree(reads.slice(0, 2));
    expect(anonymous).not.toMatch(/Secret programme/);
    expect(editor).toMatch(/Secret programme/);
  });

  it('a venue that becomes a draft leaves the events that embed it for those who may not read it', async () => {
    const { venue, reads } = await fixture();
    await warm(reads);
    await write('post', `venues/${venue.id}`, { status: 'draft' });
    const [anonymous, editor] = await agree(reads.slice(0, 2));
    expect(JSON.parse(anonymous).venue).toEqual([]);
    expect(JSON.parse(editor).venue.id).toBe(venue.id);
  });

  it('a role change of the caller changes what it is shown', async () => {
    const { venue, event } = await fixture();
    await write('post', `venues/${venue.id}`, { status: 'private' });
    const seen: Seen[] = [[`events/${event.id}`, 'contributor']];
    await warm(seen);
    expect(JSON.parse((await agree(seen))[0]).venue).toEqual([]);
    const { db } = service.database;
    await db('users').where({ id: service.users.contributor.id }).update({ role: 'editor' });
    try {
      expect(JSON.parse((await agree(seen))[0]).venue.id).toBe(venue.id);
    } finally {
      await db('users').where({ id: service.users.contributor.id }).update({ role: 'contributor' });
    }
  });

  it('a series edit reaches every occurrence', async () => {
    const created = await post('events', {
      title: 'Weekly rehearsal',
      status: 'publish',
      start_date: '2031-06-02 18:00',
      end_date: '2031-06-02 20:00',
      recurrence: { rrule: 'FREQ=WEEKLY;COUNT=4' },
    });
    const occurrences = `events/occurrences/${created.id}?${WINDOW}`;
    const list = JSON.parse((await read(reference, `${NS}/${occurrences}`)).body);
    const last = list.events[list.events.length - 1].id;
    const seen: Seen[] = [[occurrences], [`events/${last}`], [`events?${WINDOW}&search=rehearsal`]];
    await reflected(
      seen,
      () => write('post', `events/${created.id}?recurrence_scope=all`, { title: 'Weekly choir rehearsal' }),
      /Weekly choir rehearsal/,
    );
  });

  it('an event trashed, then deleted, leaves every list and single read', async () => {
    for (const force of [false, true]) {
      const { event, reads } = await fixture();
      await warm(reads);
      await write('delete', `events/${event.id}${force ? '?force=true' : ''}`);
      for (const body of await agree(reads.filter(([, role]) => role !== 'editor'))) {
        expect(body.includes(`"id":${event.id},"global_id"`)).toBe(false);
      }
    }
  });

  it('venues, organizers, categories and tags, in lists and single reads', async () => {
    const { venue, organizer, category, tag } = await fixture();
    const linked: Seen[] = [[`venues/${venue.id}`], ['venues?per_page=50'], [`organizers/${organizer.id}`, 'editor']];
    await reflected(
      linked.slice(0, 2),
      () => write('post', `venues/${venue.id}`, { venue: 'Kreuzberg Hall' }),
      /Kreuzberg Hall/,
    );
    await reflected(
      linked.slice(2),
      () => write('post', `organizers/${organizer.id}`, { organizer: 'Big Band' }),
      /Big Band/,
    );
    const terms: Seen[] = [
      [`categories/${category.id}`],
      ['categories?per_page=100'],
      [`tags/${tag.id}?i18n_language=fr`],
    ];
    await reflected(
      terms.slice(2),
      () => write('post', `tags/${tag.id}?i18n_language=fr`, { name: 'Soirée' }),
      /Soirée/,
    );
    const day = { start_date: '2031-05-02 10:00', end_date: '2031-05-02 11:00' };
    await warm(terms);
    await post('events', { title: 'Counted', status: 'publish', categories: [category.id], ...day });
    const [single] = await agree(terms);
    expect(JSON.parse(single).count).toBe(2);
  });

  it('a status that becomes publish with time reads the same as without the cache', async () => {
    const publishAt = '2027-06-15 13:00:00'; // an hour after the test clock's start
    const scheduled = await post(
      'events',
      {
        title: 'Scheduled',
        status: 'publish',
        date_utc: publishAt,
        start_date: '2031-07-01 10:00',
        end_date: '2031-07-01 11:00',
      },
      'administrator',
    );
    const seen: Seen[] = [[`events/${scheduled.id}`, 'administrator'], [`events?${WINDOW}`]];
    await warm(seen);
    const before = await agree(seen);
    setClock(clockStartingAt(new Date(new Date(TEST_NOW).getTime() + 2 * 3_600_000)));
    try {
      const after = await agree(seen);
      expect(JSON.parse(after[0]).status).toBe(JSON.parse(before[0]).status);
    } finally {
      setClock(clockStartingAt(TEST_NOW));
    }
  });
});
