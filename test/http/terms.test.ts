/**
 * Categories and tags through HTTP, on every engine: the 14 operations, every list parameter, role checks and bad
 * input (docs/compatibility.md §1.4b, §1.7, §2, §4.10, §5.3; docs/decisions.md D15, D33). Shared behaviour runs for
 * both taxonomies.
 */
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';
import { insertEvent, insertPost } from '../support/fixtures';

const TAXONOMIES = [
  { key: 'categories', taxonomy: 'tribe_events_cat', hierarchical: true, publicPath: 'events/category' },
  { key: 'tags', taxonomy: 'post_tag', hierarchical: false, publicPath: 'tag' },
] as const;

describe.each(ENGINES)('terms on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine);
  });
  afterAll(() => service.close());

  describe.each(TAXONOMIES)('$key', ({ key, taxonomy, hierarchical, publicPath }) => {
    const base = `${NS}/${key}`;
    const create = (body: object, role: Parameters<TestService['as']>[0] = 'editor') =>
      http(service)
        .post(base)
        .auth(...service.as(role))
        .send(body);
    const unique = (() => {
      let n = 0;
      return (name: string) => `${name} ${key} ${++n}`;
    })();

    describe('create', () => {
      it('answers 201 with the term shape and a Location header', async () => {
        const res = await create({ name: unique('Outdoors'), description: 'Fresh air' });
        expect(res.status).toBe(201);
        expect(res.headers.location).toBe(`${res.body.urls.self}`);
        expect(Object.keys(res.body)).toEqual(
          hierarchical
            ? ['id', 'count', 'description', 'name', 'slug', 'taxonomy', 'parent', 'meta', 'url', 'urls']
            : ['id', 'count', 'description', 'name', 'slug', 'taxonomy', 'meta', 'url', 'urls'],
        );
        expect(res.body).toMatchObject({ count: 0, description: 'Fresh air', taxonomy, meta: [] });
        expect(res.body.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1(:\\d+)?/${publicPath}/${res.body.slug}/$`));
        expect(res.body.urls).toEqual({
          self: expect.stringMatching(new RegExp(`${base}/${res.body.id}$`)),
          collection: expect.stringMatching(new RegExp(`${base}$`)),
        });
      });

      it('makes the slug from the name, transliterating and percent-encoding like WordPress', async () => {
        expect((await create({ name: `Café Nuit ${key}` })).body.slug).toBe(`cafe-nuit-${key}`);
        expect((await create({ name: '音楽' })).body.slug).toBe('%e9%9f%b3%e6%a5%bd');
      });

      it('accepts form-encoded bodies', async () => {
        const res = await http(service)
          .post(base)
          .auth(...service.as('editor'))
          .type('form')
          .send({ name: unique('Form'), slug: `form-${key}` });
        expect(res.status).toBe(201);
        expect(res.body.slug).toBe(`form-${key}`);
      });

      it('sanitises the description', async () => {
        const res = await create({
          name: unique('Html'),
          description: '<p onclick="x()">Hi <script>alert(1)</script><b>there</b></p>',
        });
        expect(res.body.description).toBe('<p>Hi <b>there</b></p>');
      });

      it('rejects a duplicate name (any case) with term_exists and the existing id', async () => {
        const name = unique('Music');
        const first = await create({ name });
        const res = await create({ name: name.toUpperCase() });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: 'term_exists', data: { status: 400, term_id: first.body.id } });
        expect((await create({ name, slug: first.body.slug })).body.code).toBe('term_exists');
      });

      it('allows a duplicate name with a new unused slug, and makes a colliding slug unique', async () => {
        const name = unique('Dance');
        const first = await create({ name });
        const second = await create({ name, slug: `${first.body.slug}-other` });
        expect(second.status).toBe(201);
        const third = await create({ name: unique('Other'), slug: first.body.slug });
        expect(third.status).toBe(201);
        expect(third.body.slug).toBe(`${first.body.slug}-2`);
      });

      it.each([
        [{}, 'rest_missing_callback_param', ['name']],
        [{ description: 'x' }, 'rest_missing_callback_param', ['name']],
        [{ name: '' }, 'rest_invalid_param', 'name'],
        [{ name: '   ' }, 'rest_invalid_param', 'name'],
        [{ name: { a: 1 } }, 'rest_invalid_param', 'name'],
        [{ name: 'Ok', description: '' }, 'rest_invalid_param', 'description'],
        [{ name: 'Ok', slug: '' }, 'rest_invalid_param', 'slug'],
        [{ name: 'Ok', slug: '!!!' }, 'rest_invalid_param', 'slug'],
        [{ name: 'Ok', description: { html: true } }, 'rest_invalid_param', 'description'],
        [{ name: 'Ok', slug: ['a'] }, 'rest_invalid_param', 'slug'],
        [{ name: ['Ok'] }, 'rest_invalid_param', 'name'],
      ])('rejects %j with %s', async (body, code, param) => {
        const res = await create(body);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe(code);
        if (Array.isArray(param)) expect(res.body.data.params).toEqual(param);
        else expect(Object.keys(res.body.data.params)).toEqual([param]);
      });

      it('answers malformed JSON with rest_invalid_json', async () => {
        const res = await http(service)
          .post(base)
          .auth(...service.as('editor'))
          .set('Content-Type', 'application/json')
          .send('{"name":');
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('rest_invalid_json');
      });

      it('answers an unsupported content type with 415', async () => {
        const res = await http(service)
          .post(base)
          .auth(...service.as('editor'))
          .set('Content-Type', 'text/plain')
          .send('name=x');
        expect(res.status).toBe(415);
        expect(res.body.code).toBe('rest_unsupported_media_type');
      });

      it('ignores unknown body fields', async () => {
        const res = await create({ name: unique('Extra'), color: 'red', count: 99 });
        expect(res.status).toBe(201);
        expect(res.body.count).toBe(0);
      });
    });

    describe('permissions (authenticate, authorise, then validate)', () => {
      it('answers anonymous writes 401 rest_forbidden, even with an invalid body', async () => {
        for (const res of [
          await http(service).post(base).send({ name: 'x' }),
          await http(service).post(base).send({}),
          await http(service).put(`${base}/1`).send({ name: 'x' }),
          await http(service).delete(`${base}/999999`),
        ]) {
          expect(res.status).toBe(401);
          expect(res.body).toMatchObject({ code: 'rest_forbidden', data: { status: 401 } });
        }
      });

      it.each(['subscriber', 'contributor', 'author'] as const)(
        'answers %s writes 403 rest_forbidden',
        async (role) => {
          const term = (await create({ name: unique('Locked') })).body;
          for (const res of [
            await create({ name: unique('Nope') }, role),
            await create({}, role),
            await http(service)
              .patch(`${base}/${term.id}`)
              .auth(...service.as(role))
              .send({ name: 'y' }),
            await http(service)
              .delete(`${base}/${term.id}`)
              .auth(...service.as(role)),
          ]) {
            expect(res.status).toBe(403);
            expect(res.body).toMatchObject({ code: 'rest_forbidden', data: { status: 403 } });
          }
        },
      );

      it.each(['editor', 'administrator'] as const)('lets %s create, update and delete', async (role) => {
        const created = await create({ name: unique('Managed') }, role);
        expect(created.status).toBe(201);
        const updated = await http(service)
          .put(`${base}/${created.body.id}`)
          .auth(...service.as(role))
          .send({ description: 'changed' });
        expect(updated.status).toBe(200);
        const deleted = await http(service)
          .delete(`${base}/${created.body.id}`)
          .auth(...service.as(role));
        expect(deleted.status).toBe(200);
      });

      it.each(['subscriber', 'contributor', 'author', 'editor', 'administrator'] as const)(
        'lets %s read',
        async (role) => {
          const term = (await create({ name: unique('Readable') })).body;
          expect(
            (
              await http(service)
                .get(`${base}/${term.id}`)
                .auth(...service.as(role))
            ).status,
          ).toBe(200);
          expect(
            (
              await http(service)
                .get(base)
                .query({ hide_empty: false })
                .auth(...service.as(role))
            ).status,
          ).toBe(200);
        },
      );
    });

    describe('read', () => {
      it('answers the term', async () => {
        const term = (await create({ name: unique('Read me') })).body;
        const res = await http(service).get(`${base}/${term.id}`);
        expect(res.status).toBe(200);
        expect(res.body).toEqual(term);
      });

      it('answers an unknown id, or an id of the other taxonomy, with 400 naming id', async () => {
        const other = key === 'categories' ? 'tags' : 'categories';
        const foreign = (
          await http(service)
            .post(`${NS}/${other}`)
            .auth(...service.as('editor'))
            .send({ name: unique('Foreign') })
        ).body;
        for (const id of [999999, 0, foreign.id]) {
          const res = await http(service).get(`${base}/${id}`);
          expect(res.status).toBe(400);
          expect(res.body).toMatchObject({
            code: 'rest_invalid_param',
            data: { status: 400, params: { id: expect.any(String) } },
          });
        }
      });

      it('answers a non-numeric id with 404 rest_no_route, as the route pattern does not match', async () => {
        for (const id of ['abc', '-1', '1.5']) {
          const res = await http(service).get(`${base}/${id}`);
          expect(res.status).toBe(404);
          expect(res.body.code).toBe('rest_no_route');
        }
      });
    });

    describe('update', () => {
      it.each(['post', 'put', 'patch'] as const)('%s changes only the fields sent', async (method) => {
        const term = (await create({ name: unique('Before'), description: 'Kept' })).body;
        const res = await http(service)
          [method](`${base}/${term.id}`)
          .auth(...service.as('editor'))
          .send({ name: `${term.name} after` });
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({
          id: term.id,
          name: `${term.name} after`,
          description: 'Kept',
          slug: term.slug,
        });
        expect((await http(service).get(`${base}/${term.id}`)).body.name).toBe(`${term.name} after`);
      });

      it('changes the slug, and refuses one taken by another term with term_exists', async () => {
        const a = (await create({ name: unique('Slug A') })).body;
        const b = (await create({ name: unique('Slug B') })).body;
        const moved = await http(service)
          .patch(`${base}/${a.id}`)
          .auth(...service.as('editor'))
          .send({ slug: `${a.slug}-moved` });
        expect(moved.body.slug).toBe(`${a.slug}-moved`);
        const taken = await http(service)
          .patch(`${base}/${a.id}`)
          .auth(...service.as('editor'))
          .send({ slug: b.slug });
        expect(taken.status).toBe(400);
        expect(taken.body).toMatchObject({ code: 'term_exists', data: { term_id: b.id } });
        const own = await http(service)
          .patch(`${base}/${a.id}`)
          .auth(...service.as('editor'))
          .send({ slug: `${a.slug}-moved` });
        expect(own.status).toBe(200);
      });

      it('refuses a rename onto a name in use at the same level', async () => {
        const a = (await create({ name: unique('Name A') })).body;
        const b = (await create({ name: unique('Name B') })).body;
        const res = await http(service)
          .patch(`${base}/${a.id}`)
          .auth(...service.as('editor'))
          .send({ name: b.name });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: 'term_exists', data: { term_id: b.id } });
      });

      it('accepts form-encoded updates', async () => {
        const term = (await create({ name: unique('Form update') })).body;
        const res = await http(service)
          .post(`${base}/${term.id}`)
          .auth(...service.as('editor'))
          .type('form')
          .send({ description: 'via form' });
        expect(res.status).toBe(200);
        expect(res.body.description).toBe('via form');
      });

      it('answers an unknown id with 400 naming id, and empty fields with 400 naming them', async () => {
        const unknown = await http(service)
          .patch(`${base}/999999`)
          .auth(...service.as('editor'))
          .send({ name: 'x' });
        expect(unknown.status).toBe(400);
        expect(Object.keys(unknown.body.data.params)).toEqual(['id']);
        const term = (await create({ name: unique('Empty') })).body;
        for (const field of ['name', 'description', 'slug']) {
          const res = await http(service)
            .patch(`${base}/${term.id}`)
            .auth(...service.as('editor'))
            .send({ [field]: '' });
          expect(res.status).toBe(400);
          expect(Object.keys(res.body.data.params)).toEqual([field]);
        }
      });
    });

    describe('delete', () => {
      it('deletes permanently, answering the term as it was; a second delete is 400', async () => {
        const term = (await create({ name: unique('Doomed') })).body;
        const eventId = await insertEvent(service.database.db, 'publish', [term.id]);
        const res = await http(service)
          .delete(`${base}/${term.id}`)
          .auth(...service.as('editor'));
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ id: term.id, name: term.name, count: 1 });
        expect((await http(service).get(`${base}/${term.id}`)).status).toBe(400);
        const again = await http(service)
          .delete(`${base}/${term.id}`)
          .auth(...service.as('editor'));
        expect(again.status).toBe(400);
        expect(again.body.code).toBe('rest_invalid_param');
        const links = await service.database.db('term_relationships').where({ post_id: eventId });
        expect(links).toEqual([]);
      });
    });

    describe('list', () => {
      const list = (query: Record<string, unknown> = {}) =>
        http(service)
          .get(base)
          .query({ hide_empty: false, ...query });

      it('answers the envelope in the plugin key order, with paging headers', async () => {
        const res = await list({ per_page: 1 });
        expect(res.status).toBe(200);
        expect(Object.keys(res.body).slice(0, 4)).toEqual(['rest_url', 'total', 'total_pages', key]);
        expect(res.body.total).toBeGreaterThan(1);
        expect(res.body.total_pages).toBe(res.body.total);
        expect(res.headers['x-tec-total']).toBe(String(res.body.total));
        expect(res.headers['x-tec-totalpages']).toBe(String(res.body.total_pages));
        expect(res.headers['x-wp-total']).toBe(String(res.body.total));
        expect(res.headers['x-wp-totalpages']).toBe(String(res.body.total_pages));
        expect(res.body.rest_url).toMatch(new RegExp(`${base}/\\?page=1&per_page=1&hide_empty=false$`));
        expect(res.body.next_rest_url).toMatch(/page=2&per_page=1&hide_empty=false$/);
        expect(res.body.previous_rest_url).toBeUndefined();
        expect(res.headers.link).toBe(`<${res.body.next_rest_url}>; rel="next"`);
      });

      it('pages through every term exactly once', async () => {
        const all = (await list({ per_page: 50 })).body;
        const seen: number[] = [];
        for (let page = 1; page <= Math.ceil(all.total / 2); page++) {
          const res = await list({ per_page: 2, page });
          seen.push(...res.body[key].map((t: { id: number }) => t.id));
          if (page > 1) expect(res.body.previous_rest_url).toMatch(new RegExp(`page=${page - 1}&`));
        }
        expect(seen.sort()).toEqual(all[key].map((t: { id: number }) => t.id).sort());
      });

      it('answers 200 with an empty page past the last one', async () => {
        const res = await list({ page: 9999 });
        expect(res.status).toBe(200);
        expect(res.body[key]).toEqual([]);
        expect(res.body.next_rest_url).toBeUndefined();
        expect(res.body.previous_rest_url).toMatch(/page=9998/);
      });

      it('caps per_page at 50', async () => {
        for (let i = 0; i < 52; i++) await create({ name: unique('Bulk') });
        const res = await list({ per_page: 100 });
        expect(res.body[key]).toHaveLength(50);
        expect(res.body.rest_url).toMatch(/per_page=50/);
      });

      it.each([
        ['page', 0],
        ['page', -1],
        ['page', 'foo'],
        ['page', 2.5],
        ['page', ''],
        ['per_page', 0],
        ['per_page', -1],
        ['per_page', 'foo'],
        ['per_page', 2.5],
        ['search', ''],
        ['order', ''],
        ['orderby', ''],
        ['slug', ''],
        ['include', 'x y'],
        ['exclude', 0],
        ['post', 'abc'],
        ['event', 0],
        ['hide_empty', 'maybe'],
        ['i18n_language', 'xx'],
      ])('answers %s=%j with 400 naming it', async (name, value) => {
        const res = await http(service)
          .get(base)
          .query({ [name]: value });
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('rest_invalid_param');
        expect(Object.keys(res.body.data.params)).toEqual([name]);
      });

      it('hides terms without published events unless hide_empty is false', async () => {
        const used = (await create({ name: unique('Used') })).body;
        const draftOnly = (await create({ name: unique('Draft only') })).body;
        await insertEvent(service.database.db, 'publish', [used.id]);
        await insertEvent(service.database.db, 'draft', [draftOnly.id]);
        const ids = async (query: object) =>
          (
            await http(service)
              .get(base)
              .query({ per_page: 50, ...query })
          ).body[key].map((t: { id: number }) => t.id);
        expect(await ids({})).toContain(used.id);
        expect(await ids({})).not.toContain(draftOnly.id);
        expect(await ids({ hide_empty: 1 })).not.toContain(draftOnly.id);
        expect(await ids({ hide_empty: 0, include: draftOnly.id })).toEqual([draftOnly.id]);
        expect((await http(service).get(`${base}/${used.id}`)).body.count).toBe(1);
      });

      it('searches names and slugs, case-insensitively and literally', async () => {
        const jazz = (await create({ name: unique('Smooth JAZZ'), slug: `zz-unusual-${key}` })).body;
        const percent = (await create({ name: unique('100% fun') })).body;
        expect((await list({ search: 'smooth jazz' })).body[key].map((t: { id: number }) => t.id)).toEqual([jazz.id]);
        expect((await list({ search: `unusual-${key}` })).body[key].map((t: { id: number }) => t.id)).toEqual([
          jazz.id,
        ]);
        expect((await list({ search: '0% f' })).body[key].map((t: { id: number }) => t.id)).toEqual([percent.id]);
        const none = await list({ search: 'no-such-term-anywhere' });
        expect(none.body).toMatchObject({ total: 0, total_pages: 0, [key]: [] });
      });

      it('includes and excludes by id or slug, in every array form', async () => {
        const a = (await create({ name: unique('Inc A') })).body;
        const b = (await create({ name: unique('Inc B') })).body;
        const ids = async (query: string) =>
          (await http(service).get(`${base}?hide_empty=0&per_page=50&${query}`)).body[key]
            .map((t: { id: number }) => t.id)
            .sort();
        expect(await ids(`include=${a.id},${b.id}`)).toEqual([a.id, b.id].sort());
        expect(await ids(`include=${a.id}&include=${b.slug}`)).toEqual([a.id, b.id].sort());
        expect(await ids(`include[]=${a.id}&include[]=${b.id}`)).toEqual([a.id, b.id].sort());
        expect(await ids(`include=${a.id},${b.id}&exclude=${a.slug}`)).toEqual([b.id]);
        const res = await http(service).get(`${base}?include=${a.id},${b.id}&hide_empty=0`);
        expect(res.body.rest_url).toContain(`include=${a.id}%2C${b.id}`);
        for (const param of ['include', 'exclude']) {
          const bad = await http(service).get(`${base}?${param}=${a.id},no-such-slug-here`);
          expect(bad.status).toBe(400);
          expect(Object.keys(bad.body.data.params)).toEqual([param]);
        }
      });

      it('orders by name by default and by the attribute asked for', async () => {
        const z = (await create({ name: `zzz ${key} order`, slug: `aaa-${key}-order` })).body;
        const a = (await create({ name: `aaa ${key} order`, slug: `zzz-${key}-order` })).body;
        const names = async (query: object) =>
          (await list({ search: `${key} order`, ...query })).body[key].map((t: { id: number }) => t.id);
        expect(await names({})).toEqual([a.id, z.id]);
        expect(await names({ order: 'DESC' })).toEqual([z.id, a.id]);
        expect(await names({ order: 'sideways' })).toEqual([z.id, a.id]);
        expect(await names({ orderby: 'slug' })).toEqual([z.id, a.id]);
        expect(await names({ orderby: 'id' })).toEqual([z.id, a.id]);
        expect(await names({ orderby: 'no-such-attribute' })).toEqual([a.id, z.id]);
        expect(await names({ orderby: 'include', include: `${a.id},${z.id}` })).toEqual([a.id, z.id]);
        expect(await names({ orderby: 'include', include: `${z.id},${a.id}` })).toEqual([z.id, a.id]);
        expect(await names({ orderby: 'count' })).toHaveLength(2);
        expect(await names({ orderby: 'description', order: 'desc' })).toHaveLength(2);
      });

      it('filters by slug, and by event (post / event, event winning)', async () => {
        const a = (await create({ name: unique('Event term A') })).body;
        const b = (await create({ name: unique('Event term B') })).body;
        const first = await insertEvent(service.database.db, 'draft', [a.id]);
        const second = await insertEvent(service.database.db, 'draft', [b.id]);
        const ids = async (query: Record<string, unknown>) =>
          (await list(query)).body[key].map((t: { id: number }) => t.id);
        expect(await ids({ slug: a.slug })).toEqual([a.id]);
        expect(await ids({ post: first })).toEqual([a.id]);
        expect(await ids({ event: second })).toEqual([b.id]);
        expect(await ids({ post: first, event: second })).toEqual([b.id]);
        const venue = await insertPost(service.database.db, 'venue');
        for (const [name, value] of [
          ['post', 999999],
          ['event', venue],
        ] as const) {
          const res = await list({ [name]: value });
          expect(res.status).toBe(400);
          expect(Object.keys(res.body.data.params)).toEqual([name]);
        }
      });

      it('ignores unknown query parameters and echoes language and filters in rest_url', async () => {
        const res = await list({ per_page: 3, _fields: 'id', whatever: 1, i18n_language: 'nl', search: 'a b' });
        expect(res.status).toBe(200);
        expect(res.body.rest_url).toContain('i18n_language=nl');
        expect(res.body.rest_url).toContain('search=a%20b');
        expect(res.body.rest_url).not.toContain('whatever');
      });
    });

    if (!hierarchical) {
      it('refuses a parent on tags with rest_taxonomy_not_hierarchical', async () => {
        const res = await create({ name: unique('Flat'), parent: 1 });
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('rest_taxonomy_not_hierarchical');
        const name = unique('Everywhere');
        await create({ name });
        expect((await create({ name })).body.code).toBe('term_exists');
      });

      it('does not know a parent filter', async () => {
        const res = await http(service).get(base).query({ parent: 'not-even-a-number', hide_empty: false });
        expect(res.status).toBe(200);
      });
    }

    if (hierarchical) {
      describe('hierarchy', () => {
        it('creates children, allows a sibling name under another parent, filters by parent', async () => {
          const parent = (await create({ name: unique('Parent') })).body;
          const child = await create({ name: 'Child', parent: parent.id });
          expect(child.status).toBe(201);
          expect(child.body.parent).toBe(parent.id);
          expect(child.body.urls.up).toBe(`${parent.urls.self}`);
          const topLevelTwin = await create({ name: 'Child' });
          expect(topLevelTwin.status).toBe(201);
          expect((await create({ name: 'child', parent: parent.id })).body.code).toBe('term_exists');
          const children = await http(service).get(base).query({ parent: parent.id, hide_empty: false });
          expect(children.body[key].map((t: { id: number }) => t.id)).toEqual([child.body.id]);
          expect(children.body.rest_url).toContain(`parent=${parent.id}`);
        });

        it.each([
          [0, 'rest_invalid_param'],
          [999999, 'rest_term_invalid'],
          ['abc', 'rest_invalid_param'],
        ])('refuses parent %j on create with %s', async (parent, code) => {
          const res = await create({ name: unique('Orphan'), parent });
          expect(res.status).toBe(400);
          expect(res.body.code).toBe(code);
        });

        it('answers an unknown or zero parent filter with 400', async () => {
          for (const parent of [999999, 0]) {
            const res = await http(service).get(base).query({ parent });
            expect(res.status).toBe(400);
            expect(Object.keys(res.body.data.params)).toEqual(['parent']);
          }
        });

        it('refuses a parent that would make a cycle, and moves to the top level with 0', async () => {
          const root = (await create({ name: unique('Root') })).body;
          const mid = (await create({ name: unique('Mid'), parent: root.id })).body;
          const leaf = (await create({ name: unique('Leaf'), parent: mid.id })).body;
          for (const parent of [root.id, leaf.id]) {
            const res = await http(service)
              .patch(`${base}/${root.id}`)
              .auth(...service.as('editor'))
              .send({ parent });
            expect(res.status).toBe(400);
            expect(Object.keys(res.body.data.params)).toEqual(['parent']);
          }
          const top = await http(service)
            .patch(`${base}/${leaf.id}`)
            .auth(...service.as('editor'))
            .send({ parent: 0 });
          expect(top.body.parent).toBe(0);
          expect(top.body.urls.up).toBeUndefined();
        });

        it('moves children up to the parent of a deleted category', async () => {
          const root = (await create({ name: unique('Grand') })).body;
          const mid = (await create({ name: unique('Middle'), parent: root.id })).body;
          const leaf = (await create({ name: unique('Small'), parent: mid.id })).body;
          await http(service)
            .delete(`${base}/${mid.id}`)
            .auth(...service.as('editor'))
            .expect(200);
          expect((await http(service).get(`${base}/${leaf.id}`)).body.parent).toBe(root.id);
        });
      });
    }
  });
});
