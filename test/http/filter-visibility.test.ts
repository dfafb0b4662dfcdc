/**
 * The events list's filters match through venues and organizers as its answers embed them (D63): a venue or
 * organizer the caller may not read (draft, private, trashed) counts as unlinked for `geoloc_*`, `geoloc`, `venue`
 * and `organizer`, so its position and the events that link it stay hidden; callers who may read it find them.
 */
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';

const HIDDEN = { geo_lat: 48.8566, geo_lng: 2.3522 };

describe.each(ENGINES)('filters through unreadable venues and organizers on %s', (engine) => {
  let service: TestService;
  let privateVenue: number;
  let draftVenue: number;
  let draftOrganizer: number;
  beforeAll(async () => {
    service = await startService(engine);
    const editor = service.as('editor');
    const create = async (path: string, body: object) => {
      const res = await http(service)
        .post(`${NS}/${path}`)
        .auth(...editor)
        .send(body);
      expect(res.status).toBe(201);
      return res.body.id as number;
    };
    privateVenue = await create('venues', { venue: 'Private hall', status: 'private', ...HIDDEN });
    draftVenue = await create('venues', { venue: 'Draft hall', status: 'draft', ...HIDDEN });
    draftOrganizer = await create('organizers', { organizer: 'Draft host', status: 'draft' });
    const event = (title: string, links: object) =>
      create('events', {
        title,
        status: 'publish',
        start_date: '2027-07-01 19:00:00',
        end_date: '2027-07-01 22:00:00',
        ...links,
      });
    await event('At the private hall', { venue: privateVenue, organizer: [draftOrganizer] });
    await event('At the draft hall', { venue: draftVenue });
  });
  afterAll(() => service.close());

  const titles = async (query: Record<string, string | number>, as?: [string, string]) => {
    const req = http(service).get(`${NS}/events`).query(query);
    const res = await (as ? req.auth(...as) : req);
    expect(res.status).toBe(200);
    return (res.body.events as Array<{ title: string }>).map((e) => e.title).sort();
  };
  const near = { geoloc_lat: HIDDEN.geo_lat, geoloc_lng: HIDDEN.geo_lng, geoloc_radius: 1 };

  it('anonymous callers find no event through a private or draft venue or organizer', async () => {
    expect(await titles(near)).toEqual([]);
    expect(await titles({ venue: privateVenue })).toEqual([]);
    expect(await titles({ venue: draftVenue })).toEqual([]);
    expect(await titles({ organizer: draftOrganizer })).toEqual([]);
    // the events themselves are public, with no venue embedded, so no venue with coordinates either
    expect(await titles({ geoloc: 'true' })).toEqual([]);
    expect(await titles({ geoloc: 'false' })).toEqual(['At the draft hall', 'At the private hall']);
  });

  it('a subscriber (who may not read others’ drafts or private records) finds none either', async () => {
    const subscriber = service.as('subscriber');
    expect(await titles(near, subscriber)).toEqual([]);
    expect(await titles({ venue: privateVenue }, subscriber)).toEqual([]);
    expect(await titles({ organizer: draftOrganizer }, subscriber)).toEqual([]);
  });

  it('an administrator finds them through every filter', async () => {
    const admin = service.as('administrator');
    expect(await titles(near, admin)).toEqual(['At the draft hall', 'At the private hall']);
    expect(await titles({ venue: privateVenue }, admin)).toEqual(['At the private hall']);
    expect(await titles({ venue: draftVenue }, admin)).toEqual(['At the draft hall']);
    expect(await titles({ organizer: draftOrganizer }, admin)).toEqual(['At the private hall']);
    expect(await titles({ geoloc: 'true' }, admin)).toEqual(['At the draft hall', 'At the private hall']);
  });

  it('an unknown id is still refused', async () => {
    const res = await http(service).get(`${NS}/events`).query({ venue: 999_999 });
    expect([res.status, res.body.code]).toEqual([400, 'rest_invalid_param']);
  });
});
