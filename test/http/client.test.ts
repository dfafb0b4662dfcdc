/** The typed client of examples/ against a live server, on every engine. */
import { ENGINES } from '../support/engines';
import { NS, startService, type TestService } from '../support/app';
import { calendarClient, roundTrip, seriesRoundTrip } from '../../examples/client';

describe.each(ENGINES)('the typed client on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine);
  });
  afterAll(() => service.close());

  it('does a full round trip', async () => {
    const { port } = service.server.address() as { port: number };
    const client = calendarClient(`http://127.0.0.1:${port}${NS}`, ...service.as('editor'));
    const result = await roundTrip(client);
    expect(result).toEqual({
      eventId: expect.any(Number),
      listedIds: [result.eventId],
      total: 1,
      featured: true,
      cost: '20$',
      dutchTitle: 'Rivier opruimen',
      dutchLanguage: 'nl',
      venueName: 'Boathouse',
      organizers: ['Green River Club', 'Inline helpers'],
      trashedStatus: 'trash',
      secondDelete: 'event-is-in-trash',
      removedStatus: 200,
    });
  });

  it('creates a series and reads its occurrences', async () => {
    const { port } = service.server.address() as { port: number };
    const client = calendarClient(`http://127.0.0.1:${port}${NS}`, ...service.as('editor'));
    expect(await seriesRoundTrip(client)).toEqual({
      rrule: 'FREQ=WEEKLY;BYDAY=TU,TH;COUNT=6',
      starts: [
        '2031-03-04 18:00:00',
        '2031-03-11 18:00:00',
        '2031-03-13 18:00:00',
        '2031-03-18 18:00:00',
        '2031-03-20 18:00:00',
      ],
      seriesIds: [true, true, true, true, true],
      secondSlug: true,
      movedStart: '2031-03-11 19:00:00',
      movedDetached: true,
    });
  });
});
