/**
 * An event embeds only the venue and organizers its reader may read (D63), in JSON, iCalendar and the
 * change feed, and an event write links only records its writer may read (400 like an unknown id).
 */
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';

const SECRET_ADDRESS = '1 Hidden Lane';
const SECRET_EMAIL = 'hidden@example.org';

describe.each(ENGINES)('embedded venues and organizers on %s', (engine) => {
  let service: TestService;
  let venueId: number;
  let organizerId: number;
  let eventId: number;
  let cursor: string;
  beforeAll(async () => {
    service = await startService(engine);
    cursor = (await http(service).get(`${NS}/changes`)).body.next_cursor;
    const editor = service.as('editor');
    const venue = await http(service)
      .post(`${NS}/venues`)
      .auth(...editor)
      .send({ venue: 'Private hall', status: 'private', address: SECRET_ADDRESS });
    const organizer = await http(service)
      .post(`${NS}/organizers`)
      .auth(...editor)
      .send({ organizer: 'Draft host', status: 'draft', email: SECRET_EMAIL });
    expect([venue.status, organizer.status]).toEqual([201, 201]);
    venueId = venue.body.id;
    organizerId = organizer.body.id;
    const event = await http(service)
      .post(`${NS}/events`)
      .auth(...editor)
      .send({
        title: 'Public gala',
        start_date: '2027-07-01 19:00:00',
        end_date: '2027-07-01 22:00:00',
        venue: venueId,
        organizer: [organizerId],
      });
    expect(event.status).toBe(201);
    eventId = event.body.id;
  });
  afterAll(() => service.close());

  const leaks = (text: string) => text.includes(SECRET_ADDRESS) || text.includes(SECRET_EMAIL);

  it('anonymous callers get no unreadable venue or organizer in JSON, as GET /venues/{id} refuses them', async () => {
    expect((await http(service).get(`${NS}/venues/${venueId}`)).status).toBe(403);
    expect((await http(service).get(`${NS}/organizers/${organizerId}`)).status).toBe(403);
    const single = await http(service).get(`${NS}/events/${eventId}`);
    expect(single.status).toBe(200);
    expect({ venue: single.body.venue, organizer: single.body.organizer }).toEqual({ venue: [], organizer: [] });
    expect(single.body.json_ld.location).toBeUndefined();
    const list = await http(service).get(`${NS}/events`).query({ start_date: '2027-07-01', end_date: '2027-07-02' });
    expect(list.status).toBe(200);
    expect(list.body.events.map((e: { id: number }) => e.id)).toEqual([eventId]);
    expect(leaks(JSON.stringify(single.body)) || leaks(JSON.stringify(list.body))).toBe(false);
  });

  it('nor in iCalendar (LOCATION, ORGANIZER) nor in the change feed', async () => {
    const ical = await http(service).get(`${NS}/events/ical/${eventId}`);
    expect(ical.status).toBe(200);
    const feed = await http(service).get(`${NS}/events/ical`).query({ start_date: '2027-07-01' });
    expect(feed.status).toBe(200);
    const changes = await http(service).get(`${NS}/changes`).query({ cursor, limit: 500 });
    expect(changes.status).toBe(200);
    const event = changes.body.changes.find((c: { resource: string; record: unknown }) => c.resource === 'event');
    expect(event.record.venue).toEqual([]);
    expect([ical.text, feed.text, JSON.stringify(changes.body)].map(leaks)).toEqual([false, false, false]);
  });

  it('callers who may read them still see them embedded', async () => {
    const res = await http(service)
      .get(`${NS}/events/${eventId}`)
      .auth(...service.as('editor'));
    expect(res.body.venue.address).toBe(SECRET_ADDRESS);
    expect(res.body.organizer.map((o: { email: string }) => o.email)).toEqual([SECRET_EMAIL]);
    const ical = await http(service)
      .get(`${NS}/events/ical/${eventId}`)
      .auth(...service.as('editor'));
    expect(ical.text).toContain(`mailto:${SECRET_EMAIL}`);
  });

  it.each([
    ['venue', () => ({ venue: venueId }), () => ({ venue: 999_999 })],
    ['organizer', () => ({ organizer: [organizerId] }), () => ({ organizer: [999_999] })],
  ])('a contributor cannot link a %s they may not read: 400 as for an unknown id', async (param, theirs, unknown) => {
    const post = (link: object) =>
      http(service)
        .post(`${NS}/events`)
        .auth(...service.as('contributor'))
        .send({ title: 'Mine', start_date: '2027-07-02 10:00:00', end_date: '2027-07-02 11:00:00', ...link });
    const [refused, missing] = [await post(theirs()), await post(unknown())];
    expect(refused.status).toBe(400);
    expect(refused.body.data.params).toHaveProperty(param);
    expect(refused.body).toEqual(missing.body);
  });

  it('an inline venue does not reuse, and so reveal, one its writer may not read', async () => {
    const res = await http(service)
      .post(`${NS}/events`)
      .auth(...service.as('contributor'))
      .send({
        title: 'Inline',
        start_date: '2027-07-03 10:00:00',
        end_date: '2027-07-03 11:00:00',
        venue: { venue: 'Private hall', address: SECRET_ADDRESS },
      });
    expect(res.status).toBe(201);
    expect(res.body.venue.id).not.toBe(venueId);
    const venue = await http(service)
      .get(`${NS}/venues/${venueId}`)
      .auth(...service.as('editor'));
    expect(venue.body.status).toBe('private');
  });

  it('inline data reuses only a venue its writer may edit: it never rewrites one of others', async () => {
    const admin = service.as('administrator');
    const hall = await http(service)
      .post(`${NS}/venues`)
      .auth(...admin)
      .send({ venue: 'Town hall', status: 'publish', address: '1 Market Square', website: 'https://town.example' });
    expect(hall.status).toBe(201);
    const res = await http(service)
      .post(`${NS}/events`)
      .auth(...service.as('contributor'))
      .send({
        title: 'Choir',
        start_date: '2027-07-04 19:00:00',
        end_date: '2027-07-04 21:00:00',
        venue: { venue: 'Town hall', address: '1 Market Square', website: 'https://attacker.example' },
      });
    expect(res.status).toBe(201);
    expect(res.body.venue.id).not.toBe(hall.body.id);
    const after = await http(service).get(`${NS}/venues/${hall.body.id}`);
    expect(after.body.website).toBe('https://town.example');
    // an editor may edit it: the duplicate is reused and the sent fields written, as the plugin does
    const edited = await http(service)
      .post(`${NS}/events`)
      .auth(...service.as('editor'))
      .send({
        title: 'Band',
        start_date: '2027-07-05 19:00:00',
        end_date: '2027-07-05 21:00:00',
        venue: { venue: 'Town hall', address: '1 Market Square', website: 'https://new.town.example' },
      });
    expect(edited.body.venue.id).toBe(hall.body.id);
    expect(edited.body.venue.website).toBe('https://new.town.example');
  });
});
