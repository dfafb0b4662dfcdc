/**
 * If-Match / If-Unmodified-Since on updates and deletes of every record kind, on each engine: the version
 * in single reads' ETags, 412 with the current ETag and nothing written, two concurrent updates with one If-Match
 * (exactly one wins), and nothing changed without the headers.
 */
import { ENGINES } from '../support/engines';
import { http, NS, startService, TEST_NOW, type TestService } from '../support/app';

const RESOURCES = [
  {
    plural: 'events',
    name: 'title',
    create: (n: string) => ({ title: n, start_date: TEST_NOW, end_date: TEST_NOW, status: 'publish' }),
  },
  { plural: 'venues', name: 'venue', create: (n: string) => ({ venue: n, status: 'publish' }) },
  { plural: 'organizers', name: 'organizer', create: (n: string) => ({ organizer: n, status: 'publish' }) },
  { plural: 'categories', name: 'name', create: (n: string) => ({ name: n }) },
  { plural: 'tags', name: 'name', create: (n: string) => ({ name: n }) },
] as const;

describe.each(ENGINES)('preconditions on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine);
  });
  afterAll(() => service.close());

  describe.each(RESOURCES)('$plural', ({ plural, name, create }) => {
    let n = 0;
    const admin = () => service.as('administrator');
    const created = async () => {
      const res = await http(service)
        .post(`${NS}/${plural}`)
        .auth(...admin())
        .send(create(`Precondition ${plural} ${++n}`));
      expect(res.status).toBe(201);
      return res.body.id as number;
    };
    const read = (id: number) =>
      http(service)
        .get(`${NS}/${plural}/${id}`)
        .auth(...admin());
    const nameOf = (body: Record<string, unknown>) => body[name === 'name' ? 'name' : name];

    it('single reads carry the version; a stale If-Match is 412 with the current ETag and writes nothing', async () => {
      const id = await created();
      const first = await read(id);
      expect(first.headers.etag).toMatch(new RegExp(`^"${id}-\\d+\\.[\\w-]+"$`));
      const ok = await http(service)
        .patch(`${NS}/${plural}/${id}`)
        .auth(...admin())
        .set('If-Match', first.headers.etag)
        .send({ [name]: 'First edit' });
      expect(ok.status).toBe(200);
      const stale = await http(service)
        .patch(`${NS}/${plural}/${id}`)
        .auth(...admin())
        .set('If-Match', first.headers.etag)
        .send({ [name]: 'Lost edit' });
      expect(stale.status).toBe(412);
      expect(stale.body).toMatchObject({ code: 'rest_precondition_failed', data: { status: 412 } });
      const now = await read(id);
      expect(nameOf(now.body)).toBe('First edit');
      expect(now.headers.etag.startsWith(stale.headers.etag.slice(0, -1))).toBe(true);
      expect(stale.body.data.etag).toBe(stale.headers.etag);
      // the 412's ETag works as it is, and so does the version read in another language
      const retry = await http(service)
        .put(`${NS}/${plural}/${id}`)
        .auth(...admin())
        .set('If-Match', stale.headers.etag)
        .send({ [name]: 'Retried' });
      expect(retry.status).toBe(200);
      const french = await http(service)
        .get(`${NS}/${plural}/${id}?i18n_language=fr`)
        .auth(...admin());
      const again = await http(service)
        .post(`${NS}/${plural}/${id}`)
        .auth(...admin())
        .set('If-Match', `"x", ${french.headers.etag}`)
        .send({ [name]: 'Third' });
      expect(again.status).toBe(200);
    });

    it('two concurrent updates with the same If-Match: exactly one wins', async () => {
      const id = await created();
      const { headers } = await read(id);
      const answers = await Promise.all(
        ['Left', 'Right', 'Middle'].map((title) =>
          http(service)
            .patch(`${NS}/${plural}/${id}`)
            .auth(...admin())
            .set('If-Match', headers.etag)
            .send({ [name]: title }),
        ),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([200, 412, 412]);
      const winner = answers.find((a) => a.status === 200);
      expect(nameOf((await read(id)).body)).toBe(nameOf(winner?.body));
    });

    it('deletes honour If-Match and If-Unmodified-Since; `*` matches any version', async () => {
      const id = await created();
      const { headers } = await read(id);
      await http(service)
        .patch(`${NS}/${plural}/${id}`)
        .auth(...admin())
        .send({ [name]: 'Changed without a precondition' })
        .expect(200);
      const stale = await http(service)
        .delete(`${NS}/${plural}/${id}?force=true`)
        .auth(...admin())
        .set('If-Match', headers.etag);
      expect(stale.status).toBe(412);
      const past = await http(service)
        .delete(`${NS}/${plural}/${id}?force=true`)
        .auth(...admin())
        .set('If-Unmodified-Since', 'Sat, 01 Jan 2000 00:00:00 GMT');
      expect(past.status).toBe(412);
      expect((await read(id)).status).toBe(200);
      const future = await http(service)
        .patch(`${NS}/${plural}/${id}`)
        .auth(...admin())
        .set('If-Unmodified-Since', 'Fri, 01 Jan 2100 00:00:00 GMT')
        .send({ [name]: 'Later' });
      expect(future.status).toBe(200);
      const any = await http(service)
        .delete(`${NS}/${plural}/${id}?force=true`)
        .auth(...admin())
        .set('If-Match', '*');
      expect(any.status).toBe(200);
    });
  });
});
