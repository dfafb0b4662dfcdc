/**
 * What the contract run (test/contract/) found, fixed, through HTTP on every engine: JSON bodies
 * keep their types while forms are read as text (D91), tags have no `parent` (D92), booleans in any case and empty
 * list filters (D93), a webhook URL that is a URL, and `links` on every create answer (D94).
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import { loadSpec } from '../../src/http/spec';
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';

describe.each(ENGINES)('contract fixes on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine);
  });
  afterAll(() => service.close());

  const post = (path: string, body: object) =>
    http(service)
      .post(`${NS}${path}`)
      .auth(...service.as('administrator'))
      .send(body);

  it.each([
    ['/tags', { name: false }, 'name'],
    ['/tags', { name: 42 }, 'name'],
    ['/tags', { name: 'Typed', description: null }, 'description'],
    ['/categories', { name: ['a'] }, 'name'],
    ['/users/me/application-passwords', { name: 42 }, 'name'],
    ['/webhooks', { url: 'https://receiver.example/hook', events: ['event.created'], description: 7 }, 'description'],
  ])('refuses a JSON field of another type: POST %s %j', async (path, body, field) => {
    const res = await post(path, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('rest_invalid_param');
    expect(Object.keys(res.body.data.params)).toEqual([field]);
  });

  it('reads a form body as text, as WordPress does', async () => {
    const res = await http(service)
      .post(`${NS}/tags`)
      .auth(...service.as('administrator'))
      .type('form')
      .send('name=42');
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('42');
    const event = await http(service)
      .post(`${NS}/events`)
      .auth(...service.as('administrator'))
      .type('form')
      .send('title=Form&start_date=2027-07-01 10:00:00&end_date=2027-07-01 11:00:00&all_day=TRUE&featured=1');
    expect(event.status).toBe(201);
    expect(event.body.all_day).toBe(true);
    expect(event.body.featured).toBe(true);
  });

  it('reads booleans in any case, and names the allowed values once when one is wrong', async () => {
    const event = await post('/events', {
      title: 'Cased',
      start_date: '2027-07-02 10:00:00',
      end_date: '2027-07-02 11:00:00',
      featured: 'True',
      all_day: 'FALSE',
    });
    expect(event.status).toBe(201);
    expect(event.body.featured).toBe(true);
    expect(event.body.all_day).toBe(false);
    const list = await http(service).get(`${NS}/events?featured=True&start_date=2027-07-01`);
    expect(list.status).toBe(200);
    expect(list.body.events.map((e: { id: number }) => e.id)).toContain(event.body.id);
    const wrong = await http(service).get(`${NS}/events?featured=yes`);
    expect(wrong.status).toBe(400);
    expect(wrong.body.data.params.featured).toBe('featured is not one of true, false, 1, 0.');
  });

  it.each([
    '/categories?include=',
    '/categories?exclude=&include=',
    '/tags?include=&exclude=',
    '/tags?include[]=',
    '/events?tags=&categories=&venue=&organizer=&include=',
  ])('takes an empty list parameter as no filter: %s', async (path) => {
    const res = await http(service)
      .get(`${NS}${path}`)
      .auth(...service.as('administrator'));
    expect(res.status).toBe(200);
  });

  it('keeps refusing an empty status, a list that needs items', async () => {
    const res = await http(service).get(`${NS}/venues?status=`);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.data.params)).toEqual(['status']);
  });

  it('keeps refusing a parent on tags, which the spec no longer lists', async () => {
    const spec = loadSpec().document as OpenAPIV3_1.Document;
    const tagWrite = spec.components?.schemas?.TagWrite as OpenAPIV3_1.SchemaObject;
    expect(Object.keys(tagWrite.properties ?? {})).not.toContain('parent');
    const res = await post('/tags', { name: 'Flat', parent: 1 });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('rest_taxonomy_not_hierarchical');
  });

  it.each(['', 'not a url'])('refuses a webhook url of %j', async (url) => {
    const res = await post('/webhooks', { url, events: ['event.created'] });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.data.params)).toEqual(['url']);
  });

  it('links every create answer to the operations on what it made', async () => {
    const spec = loadSpec();
    const creates = spec.operations.filter((op) => op.method === 'post' && op.definition.responses?.['201']);
    expect(creates.map((op) => op.operationId).sort()).toEqual(
      [
        'createCategory',
        'createEvent',
        'createMyAppPassword',
        'createOrganizer',
        'createTag',
        'createUserAppPassword',
        'createVenue',
        'createWebhook',
      ].sort(),
    );
    for (const create of creates) {
      const links = Object.values(
        ((create.definition.responses?.['201'] as OpenAPIV3_1.ResponseObject | undefined)?.links ?? {}) as Record<
          string,
          { operationId: string; parameters: Record<string, string> }
        >,
      );
      expect(links.length).toBeGreaterThan(0);
      for (const link of links) {
        const target = spec.operations.find((op) => op.operationId === link.operationId);
        expect(target).toBeDefined();
        const pathParams = target?.parameters.filter((p) => p.in === 'path').map((p) => p.name) ?? [];
        expect(Object.keys(link.parameters).sort()).toEqual(pathParams.sort());
      }
    }
    // a link really leads to the record: the id of a create answer reads it back
    const tag = await post('/tags', { name: 'Linked' });
    const read = await http(service).get(`${NS}/tags/${tag.body.id}`);
    expect(read.body.name).toBe('Linked');
  });
});
