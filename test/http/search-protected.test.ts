/**
 * `search` must not tell whether a password-protected event's description or excerpt holds a text to a
 * caller who may not read them (D64): such callers match it on its title only. The right `password`, or the right
 * to edit the event, matches every field as before.
 */
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';
import type { Role } from '../../src/users/roles';
import { eventFilters } from '../../src/resources/events/list';
import { listEvents } from '../../src/resources/events/repository';

const PASSWORD = 'open sesame';

describe.each(ENGINES)('search and password-protected events on %s', (engine) => {
  let service: TestService;
  let protectedId: number;
  let openId: number;
  let cursor: string;
  beforeAll(async () => {
    service = await startService(engine);
    cursor = (await http(service).get(`${NS}/changes`)).body.next_cursor;
    const create = async (role: Role, body: object) => {
      const res = await http(service)
        .post(`${NS}/events`)
        .auth(...service.as(role))
        .send({ start_date: '2027-07-01 19:00:00', end_date: '2027-07-01 22:00:00', ...body });
      expect(res.status).toBe(201);
      return res.body.id as number;
    };
    protectedId = await create('author', {
      title: 'Members gala',
      description: 'The door code is zebra42',
      excerpt: 'Bring a walrus costume',
      password: PASSWORD,
    });
    openId = await create('editor', { title: 'Open day', description: 'Anyone may say zebra42 here' });
  });
  afterAll(() => service.close());

  const found = async (search: string, role?: Role, query: object = {}) => {
    const req = http(service)
      .get(`${NS}/events`)
      .query({ search, start_date: '2027-07-01', end_date: '2027-07-02', ...query });
    const res = role ? await req.auth(...service.as(role)) : await req;
    expect(res.status).toBe(200);
    return (res.body.events as Array<{ id: number }>).map((e) => e.id).sort((a, b) => a - b);
  };

  it('anonymous searches do not match protected text, one character at a time or whole', async () => {
    for (const probe of ['zebra42', 'zeb', 'z', 'walrus', 'door code', 'costume'])
      expect({ probe, ids: (await found(probe)).filter((id) => id === protectedId) }).toEqual({ probe, ids: [] });
    expect(await found('zebra42')).toEqual([openId]);
  });

  it('they still find it by its title, blanked', async () => {
    const res = await http(service)
      .get(`${NS}/events`)
      .query({ search: 'gala', start_date: '2027-07-01', end_date: '2027-07-02' });
    expect(res.body.events.map((e: { id: number; description: string }) => [e.id, e.description])).toEqual([
      [protectedId, ''],
    ]);
  });

  it('subscribers and contributors who may not edit it are treated alike', async () => {
    expect(await found('walrus', 'subscriber')).toEqual([]);
    expect(await found('walrus', 'contributor')).toEqual([]);
  });

  it('the right password, its author and editors match every field', async () => {
    expect(await found('walrus', undefined, { password: PASSWORD })).toEqual([protectedId]);
    expect(await found('walrus', undefined, { password: 'wrong' })).toEqual([]);
    expect(await found('zebra42', 'author')).toEqual([openId, protectedId].sort((a, b) => a - b));
    expect(await found('walrus', 'editor')).toEqual([protectedId]);
  });

  it('the same holds when a search matches too many events to be resolved to ids first', async () => {
    const { config } = service;
    const { db } = service.database;
    const filters = await eventFilters(db, config, undefined, { search: 'walrus', start_date: '2027-07-01' }, 'en');
    const { ids: _ids, ...unresolved } = filters.search!;
    expect((await listEvents(db, { ...filters, search: unresolved }, 10, 0)).rows).toEqual([]);
  });

  it('feeds and the change feed carry no protected text to anonymous callers', async () => {
    const ical = await http(service).get(`${NS}/events/ical`).query({ search: 'walrus', start_date: '2027-07-01' });
    expect(ical.status).toBe(200);
    expect(ical.text).not.toContain('BEGIN:VEVENT');
    const changes = await http(service).get(`${NS}/changes`).query({ cursor, limit: 500 });
    expect(changes.status).toBe(200);
    expect(JSON.stringify(changes.body)).not.toMatch(/walrus|door code/);
    const record = changes.body.changes.find((c: { id: number }) => c.id === protectedId).record;
    expect([record.description, record.excerpt]).toEqual(['', '']);
  });
});
