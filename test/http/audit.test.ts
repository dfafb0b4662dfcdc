/**
 * The audit trail on each engine: API writes of every kind record who (user, application password), when,
 * from where, which operation on which record and the changed fields (secrets redacted), in the write's
 * transaction; GET /audit for administrators with filters and paging; CLI writes; retention by the service clock.
 */
import { ENGINES, freshDatabaseUrl } from '../support/engines';
import { http, NS, startService, TEST_NOW, type TestService } from '../support/app';
import { cli } from '../process/support';
import { clockStartingAt, manualClock, setClock } from '../../src/domain/clock';
import { purgeExpired } from '../../src/audit/repository';
import { createDb } from '../../src/db/knex';

describe.each(ENGINES)('audit trail on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine);
  });
  afterAll(() => service.close());
  afterEach(() => setClock(clockStartingAt(TEST_NOW)));

  const admin = () => service.as('administrator');
  const trail = (query: string) =>
    http(service)
      .get(`${NS}/audit?${query}`)
      .auth(...admin());

  it("records an event's create, update and trash with who, where and the changed fields", async () => {
    const key = await http(service)
      .post(`${NS}/users/me/application-passwords`)
      .auth(...service.as('editor'))
      .send({ name: 'Importer' });
    const auth: [string, string] = [service.users.editor.login, key.body.password];
    const created = await http(service)
      .post(`${NS}/events`)
      .auth(...auth)
      .send({
        title: 'Audited',
        start_date: TEST_NOW,
        end_date: TEST_NOW,
        status: 'publish',
        password: 'hush',
        categories: ['Audit cat'],
      });
    expect(created.status).toBe(201);
    const id = created.body.id;
    await http(service)
      .patch(`${NS}/events/${id}`)
      .auth(...auth)
      .send({ title: 'Audited again', password: 'hush2' })
      .expect(200);
    await http(service)
      .delete(`${NS}/events/${id}`)
      .auth(...auth)
      .expect(200);

    const res = await trail(`resource=event&id=${id}`);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(3);
    const [trash, update, create] = res.body.audit;
    expect(create).toMatchObject({
      operation: 'create',
      resource: 'event',
      record: String(id),
      via: 'api',
      user: service.users.editor.id,
      login: service.users.editor.login,
      application_password: 'Importer',
      address: expect.stringMatching(/127\.0\.0\.1/),
      date_utc: expect.stringMatching(/^2027-06-15T12:/),
    });
    expect(create.changes.title).toEqual({ new: 'Audited' });
    expect(create.changes.password).toEqual({ new: '[redacted]' });
    expect(create.changes.categories).toEqual({ new: ['Audit cat'] });
    expect(update).toMatchObject({
      operation: 'update',
      changes: { title: { old: 'Audited', new: 'Audited again' }, password: { old: '[redacted]', new: '[redacted]' } },
    });
    expect(update.changes.status).toBeUndefined(); // unchanged fields are not listed
    expect(trash).toMatchObject({ operation: 'trash', changes: { status: { old: 'publish', new: 'trash' } } });
    expect(JSON.stringify(res.body)).not.toMatch(/hush|scrypt/);
  });

  it('records venue, organizer, category, tag and application password writes; a refused write records nothing', async () => {
    const venue = (
      await http(service)
        .post(`${NS}/venues`)
        .auth(...admin())
        .send({ venue: 'Audit Hall', city: 'Ghent' })
    ).body;
    await http(service)
      .patch(`${NS}/venues/${venue.id}`)
      .auth(...admin())
      .send({ city: 'Bruges' })
      .expect(200);
    const organizer = (
      await http(service)
        .post(`${NS}/organizers`)
        .auth(...admin())
        .send({ organizer: 'Audit Club' })
    ).body;
    await http(service)
      .delete(`${NS}/organizers/${organizer.id}?force=true`)
      .auth(...admin())
      .expect(200);
    const category = (
      await http(service)
        .post(`${NS}/categories`)
        .auth(...admin())
        .send({ name: 'Audit category' })
    ).body;
    await http(service)
      .put(`${NS}/categories/${category.id}`)
      .auth(...admin())
      .send({ description: 'Now described' })
      .expect(200);
    const tag = (
      await http(service)
        .post(`${NS}/tags`)
        .auth(...admin())
        .send({ name: 'Audit tag' })
    ).body;
    await http(service)
      .delete(`${NS}/tags/${tag.id}`)
      .auth(...admin())
      .expect(200);
    const before = (await trail('per_page=1')).body.total;
    await http(service)
      .patch(`${NS}/tags/${category.id}`)
      .auth(...admin())
      .send({ name: 'x' })
      .expect(400);
    await http(service)
      .patch(`${NS}/venues/${venue.id}`)
      .auth(...admin())
      .set('If-Match', '"0-0"')
      .send({ city: 'Lost' })
      .expect(412);
    expect((await trail('per_page=1')).body.total).toBe(before);

    const venueTrail = (await trail(`resource=venue&id=${venue.id}`)).body.audit;
    expect(venueTrail.map((e: { operation: string }) => e.operation)).toEqual(['update', 'create']);
    expect(venueTrail[0].changes).toEqual({ city: { old: 'Ghent', new: 'Bruges' } });
    expect(
      (await trail(`resource=organizer&id=${organizer.id}`)).body.audit.map((e: { operation: string }) => e.operation),
    ).toEqual(['delete', 'create']);
    const categoryTrail = (await trail(`resource=category&id=${category.id}`)).body.audit;
    expect(categoryTrail[0]).toMatchObject({
      operation: 'update',
      changes: { description: { old: '', new: 'Now described' } },
    });
    expect((await trail(`resource=tag&id=${tag.id}`)).body.audit[0]).toMatchObject({
      operation: 'delete',
      changes: { name: { old: 'Audit tag' } },
    });
    const keys = (await trail('resource=app_password')).body.audit;
    expect(keys.length).toBeGreaterThan(0);
    expect(JSON.stringify(keys)).not.toMatch(/scrypt|password_hash/);
  });

  it('records the categories, tags, venue and organizer an event write creates, each as a create of its own, in its transaction', async () => {
    const editor = service.as('editor');
    const created = await http(service)
      .post(`${NS}/events`)
      .auth(...editor)
      .send({
        title: 'Implicit records',
        start_date: TEST_NOW,
        end_date: TEST_NOW,
        status: 'publish',
        categories: ['Implicit category'],
        tags: 'Implicit tag',
        venue: { venue: 'Implicit hall', city: 'Lyon' },
        organizer: [{ organizer: 'Implicit club' }],
      });
    expect(created.status).toBe(201);
    const patched = await http(service)
      .patch(`${NS}/events/${created.body.id}`)
      .auth(...editor)
      .send({ tags: ['Implicit tag', 'Later tag'] });
    expect(patched.status).toBe(200);
    const {
      categories: [category],
      venue,
      organizer: [organizer],
    } = created.body;
    const [tag, later] = patched.body.tags;
    const made: Array<[string, number, string, string]> = [
      ['category', category.id, 'name', 'Implicit category'],
      ['tag', tag.id, 'name', 'Implicit tag'],
      ['tag', later.id, 'name', 'Later tag'],
      ['venue', venue.id, 'title', 'Implicit hall'],
      ['organizer', organizer.id, 'title', 'Implicit club'],
    ];
    for (const [resource, id, field, value] of made) {
      const entries = (await trail(`resource=${resource}&id=${id}`)).body.audit;
      expect(entries).toEqual([
        expect.objectContaining({
          operation: 'create',
          resource,
          record: String(id),
          user: service.users.editor.id,
          via: 'api',
        }),
      ]);
      expect(entries[0].changes[field]).toEqual({ new: value });
    }
    expect((await trail(`resource=venue&id=${venue.id}`)).body.audit[0].changes.city).toEqual({ new: 'Lyon' });

    // a write refused after naming a new term (its slug is empty) leaves neither the term nor its entry
    const before = (await trail('per_page=1')).body.total;
    const refused = await http(service)
      .post(`${NS}/events`)
      .auth(...editor)
      .send({ title: 'Refused', start_date: TEST_NOW, end_date: TEST_NOW, categories: ['Never made'], slug: '!!!' });
    expect(refused.status).toBe(400);
    expect(refused.body.data.params).toHaveProperty('slug');
    expect(await service.database.db('terms').where({ name: 'Never made' }).first()).toBeUndefined();
    expect((await trail('per_page=1')).body.total).toBe(before);
  });

  it('records webhook subscription create, update, secret rotation and delete, never the secret', async () => {
    const made = await http(service)
      .post(`${NS}/webhooks`)
      .auth(...admin())
      .send({ url: 'https://hooks.example.com/calendar', events: ['event.created'], description: 'Audited hook' });
    expect(made.status).toBe(201);
    const { id, secret } = made.body;
    await http(service)
      .patch(`${NS}/webhooks/${id}`)
      .auth(...admin())
      .send({ description: 'Renamed hook', active: false })
      .expect(200);
    const rotated = await http(service)
      .post(`${NS}/webhooks/${id}/rotate-secret`)
      .auth(...admin());
    expect(rotated.status).toBe(200);
    await http(service)
      .delete(`${NS}/webhooks/${id}`)
      .auth(...admin())
      .expect(200);

    const res = await trail(`resource=webhook&id=${id}`);
    expect(res.status).toBe(200);
    const [deleted, rotation, update, create] = res.body.audit;
    expect(res.body.audit).toHaveLength(4);
    expect(create).toMatchObject({
      operation: 'create',
      resource: 'webhook',
      user: service.users.administrator.id,
      via: 'api',
      changes: {
        url: { new: 'https://hooks.example.com/calendar' },
        events: { new: ['event.created'] },
        active: { new: true },
        description: { new: 'Audited hook' },
      },
    });
    expect(create.changes).not.toHaveProperty('secret');
    expect(update).toMatchObject({
      operation: 'update',
      changes: { description: { old: 'Audited hook', new: 'Renamed hook' }, active: { old: true, new: false } },
    });
    expect(Object.keys(update.changes).sort()).toEqual(['active', 'description']);
    expect(rotation).toMatchObject({
      operation: 'update',
      changes: { secret: { old: '[redacted]', new: '[redacted]' } },
    });
    expect(deleted).toMatchObject({
      operation: 'delete',
      changes: { url: { old: 'https://hooks.example.com/calendar' }, events: { old: ['event.created'] } },
    });
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(rotated.body.secret);
    expect(text).not.toMatch(/whsec_/);
    const stored = await service.database
      .db('audit_log')
      .where({ resource: 'webhook', record_id: String(id) })
      .select('changes');
    expect(JSON.stringify(stored)).not.toMatch(/whsec_/);
  });

  it('filters by user and time, pages like every list, and is for administrators only', async () => {
    await http(service)
      .post(`${NS}/tags`)
      .auth(...service.as('editor'))
      .send({ name: 'Editor tag' })
      .expect(201);
    const byEditor = await trail(`user=${service.users.editor.id}&per_page=1`);
    expect(byEditor.body.audit).toHaveLength(1);
    expect(byEditor.body.total).toBeGreaterThan(1);
    expect(byEditor.body.next_rest_url).toMatch(/\/audit\/\?page=2&per_page=1&user=\d+/);
    expect(byEditor.headers['x-wp-total']).toBe(String(byEditor.body.total));
    expect(byEditor.body.audit.every((e: { user: number }) => e.user === service.users.editor.id)).toBe(true);
    expect((await trail('after=2030-01-01T00:00:00Z')).body.total).toBe(0);
    expect((await trail('before=2027-06-15T11:59:59Z')).body.total).toBe(0);
    expect((await trail('after=2027-06-15T11:59:59Z')).body.total).toBeGreaterThan(0);
    expect((await trail('after=yesterday-ish')).status).toBe(400);
    expect(
      (
        await http(service)
          .get(`${NS}/audit`)
          .auth(...service.as('editor'))
      ).status,
    ).toBe(403);
    expect((await http(service).get(`${NS}/audit`)).status).toBe(401);
  });

  it('keeps entries for the retention period (service clock)', async () => {
    const clock = manualClock(TEST_NOW);
    setClock(clock);
    const total = async () => Number((await service.database.db('audit_log').count({ n: '*' }))[0].n);
    const before = await total();
    expect(before).toBeGreaterThan(0);
    clock.advance(364 * 86_400_000);
    expect((await purgeExpired(service.database.db, 365)).audit).toBe(0);
    clock.advance(2 * 86_400_000);
    expect((await purgeExpired(service.database.db, 365)).audit).toBe(before);
    expect(await total()).toBe(0);
  });
});

describe.each(ENGINES)('audit of CLI writes on %s', (engine) => {
  it('user and application password commands are recorded (via cli), never with their secrets', async () => {
    const database = await freshDatabaseUrl(engine);
    try {
      const user = cli(database.url, 'user', 'create', '--login', 'cli-user', '--role', 'editor');
      expect(user.status).toBe(0);
      const made = cli(
        database.url,
        'app-password',
        'create',
        '--login',
        'cli-user',
        '--name',
        'Backup job',
        '--scope',
        'read',
      );
      expect(made.status).toBe(0);
      expect(made.lines[0]).toMatchObject({
        login: 'cli-user',
        name: 'Backup job',
        scope: 'read',
        password: expect.stringMatching(/^\w{24}$/),
      });
      const listed = cli(database.url, 'app-password', 'list', '--login', 'cli-user');
      expect(listed.lines).toEqual([expect.objectContaining({ uuid: made.lines[0].uuid, name: 'Backup job' })]);
      expect(JSON.stringify(listed.lines)).not.toContain(made.lines[0].password);
      expect(
        cli(database.url, 'app-password', 'revoke', '--login', 'cli-user', '--uuid', made.lines[0].uuid).lines,
      ).toEqual([{ revoked: 1 }]);
      expect(
        cli(database.url, 'app-password', 'revoke', '--login', 'cli-user', '--uuid', made.lines[0].uuid).status,
      ).toBe(2);

      const db = createDb(database.url);
      try {
        const rows = await db('audit_log').orderBy('id').select('*');
        expect(rows.map((r) => [r.via, r.operation, r.resource])).toEqual([
          ['cli', 'create', 'user'],
          ['cli', 'create', 'app_password'],
          ['cli', 'revoke', 'app_password'],
        ]);
        expect(rows.every((r) => r.user_id === null && typeof r.login === 'string')).toBe(true);
        const text = JSON.stringify(rows);
        expect(text).not.toContain(user.lines[0].password);
        expect(text).not.toContain(made.lines[0].password);
        expect(JSON.parse(rows[0].changes).password).toEqual({ new: '[redacted]' });
      } finally {
        await db.destroy();
      }
    } finally {
      await database.drop();
    }
  }, 120_000);
});
