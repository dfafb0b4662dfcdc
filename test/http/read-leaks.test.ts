/**
 * What answers give away besides their records: credentials sent in a query are never repeated in an answer's URLs
 * and make it `no-store`; an ETag moves only with what its caller sees, never with writes they cannot see; and a
 * record has one ETag wherever it appears (GET, HEAD, write answers, 412).
 */
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';

const WHEN = { start_date: '2027-08-01 10:00:00', end_date: '2027-08-01 11:00:00' };

describe.each(ENGINES)('what answers give away on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine);
  });
  afterAll(() => service.close());

  const editor = () => service.as('editor');
  const create = async (path: string, body: object) => {
    const res = await http(service)
      .post(`${NS}/${path}`)
      .auth(...editor())
      .send(body);
    expect(res.status).toBe(201);
    return res.body as { id: number };
  };
  const patch = async (path: string, body: object) => {
    const res = await http(service)
      .patch(`${NS}/${path}`)
      .auth(...editor())
      .send(body);
    expect(res.status).toBe(200);
  };

  describe('credentials in the query', () => {
    beforeAll(async () => {
      for (const title of ['Open one', 'Open two', 'Locked'])
        await create('events', {
          title,
          status: 'publish',
          ...WHEN,
          ...(title === 'Locked' && { password: 's3cret' }),
        });
    });

    it.each([
      ['password', 's3cret'],
      ['key', 'editor:abcd efgh ijkl mnop qrst uvwx'],
    ])('a list read with `%s` repeats it in no URL and is no-store', async (name, value) => {
      const res = await http(service)
        .get(`${NS}/events`)
        .query({ [name]: value, per_page: 1, page: 2, start_date: '2027-08-01', end_date: '2027-08-01' });
      expect(res.status).toBe(200);
      const urls = [res.body.rest_url, res.body.next_rest_url, res.body.previous_rest_url, res.headers.link];
      expect(urls.every((url) => typeof url === 'string')).toBe(true);
      for (const url of urls) {
        expect(url).not.toContain(`${name}=`);
        expect(url).not.toContain(encodeURIComponent(value).slice(0, 6));
      }
      expect(res.body.rest_url).toContain('start_date=2027-08-01'); // the other filters are still echoed
      expect(res.headers['cache-control']).toBe('no-store');
    });

    it('a single read with the event password is no-store; without it, public', async () => {
      const locked = (
        await http(service)
          .get(`${NS}/events`)
          .auth(...editor())
          .query({ search: 'Locked', start_date: '2027-08-01', end_date: '2027-08-01' })
      ).body.events[0];
      const opened = await http(service).get(`${NS}/events/${locked.id}`).query({ password: 's3cret' });
      expect(opened.status).toBe(200);
      expect(opened.headers['cache-control']).toBe('no-store');
      const open = await http(service).get(`${NS}/events`).query({ start_date: '2027-08-01', end_date: '2027-08-01' });
      expect(open.headers['cache-control']).toBe('public, max-age=30');
    });
  });

  describe('ETags move only with what the caller sees', () => {
    it('writes to drafts and private records leave the anonymous tags of public answers as they were', async () => {
      const hidden = await create('venues', { venue: 'Private room', status: 'private' });
      const shown = await create('events', { title: 'Public talk', status: 'publish', ...WHEN, venue: hidden.id });
      const draft = await create('events', { title: 'Draft talk', status: 'draft', ...WHEN });
      const list = () => http(service).get(`${NS}/events`).query({ start_date: '2027-08-01', end_date: '2027-08-01' });
      const single = () => http(service).get(`${NS}/events/${shown.id}`);
      const tags = async () => [(await single()).headers.etag, (await list()).headers.etag];
      const before = await tags();
      expect((await single()).body.venue).toEqual([]); // the private venue, as if unlinked

      await patch(`events/${draft.id}`, { title: 'Draft talk, renamed' });
      await patch(`venues/${hidden.id}`, { venue: 'Private room, renamed' });
      await create('organizers', { organizer: 'Draft host', status: 'draft' });
      expect(await tags()).toEqual(before);
      expect((await single().set('If-None-Match', before[0])).status).toBe(304);
      // as `fetch` sends a conditional read: `no-cache` speaks to caches, the origin still answers 304
      expect((await single().set('If-None-Match', before[0]).set('Cache-Control', 'no-cache')).status).toBe(304);
      expect((await list().set('If-None-Match', before[1])).status).toBe(304);

      await patch(`events/${shown.id}`, { title: 'Public talk, renamed' });
      const after = await tags();
      expect(after[0]).not.toBe(before[0]);
      expect(after[1]).not.toBe(before[1]);
    });
  });

  describe('one record, one ETag', () => {
    it.each([
      ['events', 'title', { status: 'publish', ...WHEN }],
      ['venues', 'venue', { status: 'publish' }],
      ['tags', 'name', {}],
    ])('%s: GET, HEAD, the write answer and the 412 name the same tag', async (path, name, fields) => {
      const made = await create(path, { [name]: `One tag ${path}`, ...fields });
      const url = `${NS}/${path}/${made.id}`;
      const written = await http(service)
        .patch(url)
        .auth(...editor())
        .send({ [name]: `One tag ${path}, edited` });
      const got = await http(service)
        .get(url)
        .auth(...editor());
      const head = await http(service)
        .head(url)
        .auth(...editor());
      expect(got.headers.etag).toMatch(new RegExp(`^"${made.id}-\\d+\\.v[\\w-]{31}"$`));
      expect([written.headers.etag, head.headers.etag]).toEqual([got.headers.etag, got.headers.etag]);

      const stale = await http(service)
        .patch(url)
        .auth(...editor())
        .set('If-Match', `"${made.id}-1"`)
        .send({ [name]: 'Lost' });
      expect(stale.status).toBe(412);
      expect(stale.headers.etag).toBe(got.headers.etag);
      expect(stale.body.data.etag).toBe(got.headers.etag);
      const retried = await http(service)
        .patch(url)
        .auth(...editor())
        .set('If-Match', stale.body.data.etag)
        .send({ [name]: 'Kept' });
      expect(retried.status).toBe(200);
    });
  });
});
