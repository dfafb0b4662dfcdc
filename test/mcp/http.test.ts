/**
 * `/mcp` over Streamable HTTP with the SDK's own client, on each engine: every generated tool called at
 * least once, an event's life (inline venue and organizer, found by search and by date, updated with If-Match, read
 * as iCalendar, deleted), permissions as REST has them, errors an assistant can act on (in the caller's language),
 * audit entries and change-feed records the same as REST's, resources, and the DNS rebinding protection.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';
import { call, connectHttp, etagOf, mcpUrl, schemaValidator } from './support';

const DAY = '2027-06-18';

describe.each(ENGINES)('MCP over Streamable HTTP on %s', (engine) => {
  let service: TestService;
  let admin: Client;
  let tools: Map<string, Tool>;
  const ajv = schemaValidator();
  const called = new Set<string>();
  const run = async (client: Client, name: string, args: Record<string, unknown>) => {
    const result = await call(client, tools, name, args, ajv);
    if (!result.isError) called.add(name);
    return result;
  };

  beforeAll(async () => {
    service = await startService(engine);
    admin = await connectHttp(service, service.as('administrator'));
    tools = new Map((await admin.listTools()).tools.map((tool) => [tool.name, tool]));
  });
  afterAll(async () => {
    await admin.close();
    await service.close();
  });

  it('lists the generated tools with schemas that compile under JSON Schema 2020-12 and honest annotations', () => {
    expect(tools.size).toBe(27);
    for (const tool of tools.values()) {
      expect(() => ajv.compile(tool.inputSchema)).not.toThrow();
      if (tool.outputSchema) expect(() => ajv.compile(tool.outputSchema as object)).not.toThrow();
      expect(tool.description).toBeTruthy();
      const method = tool.name.split('_')[0];
      expect(tool.annotations?.readOnlyHint).toBe(method === 'list' || method === 'get');
      expect(tool.annotations?.destructiveHint).toBe(method === 'delete');
    }
    expect(tools.get('get_event_ical')?.outputSchema).toBeUndefined();
    expect(tools.get('update_event')?.inputSchema.properties).toHaveProperty('if_match');
    expect(tools.get('create_event')?.inputSchema.required).toEqual(['title', 'start_date', 'end_date']);
  });

  it("lives an event's life: inline venue and organizer, search, date, If-Match update, iCalendar, delete", async () => {
    const created = await run(admin, 'create_event', {
      title: 'Choir concert',
      start_date: `${DAY} 19:00:00`,
      end_date: `${DAY} 21:00:00`,
      status: 'publish',
      venue: { venue: 'Church hall', city: 'Berlin' },
      organizer: [{ organizer: 'Kreuzberg Choir' }],
      idempotency_key: 'choir-1',
    });
    expect(created.isError).toBeFalsy();
    const event = created.structuredContent as { id: number; venue: { id: number }; organizer: { id: number }[] };
    expect(event.venue).toMatchObject({ venue: 'Church hall' });
    expect(event.organizer[0]).toMatchObject({ organizer: 'Kreuzberg Choir' });

    const bySearch = await run(admin, 'list_events', { search: 'choir' });
    expect((bySearch.structuredContent as { events: { id: number }[] }).events.map((e) => e.id)).toEqual([event.id]);
    const byDate = await run(admin, 'list_events', { start_date: `${DAY} 00:00`, end_date: `${DAY} 23:59` });
    expect((byDate.structuredContent as { events: { id: number }[] }).events.map((e) => e.id)).toEqual([event.id]);
    const otherDay = await run(admin, 'list_events', { start_date: '2027-06-19 00:00', end_date: '2027-06-19 23:59' });
    expect((otherDay.structuredContent as { events: unknown[] }).events).toEqual([]);

    const read = await run(admin, 'get_event', { id: event.id });
    const etag = etagOf(read);
    expect(etag).toMatch(/^"\d+-\d+\./);
    const updated = await run(admin, 'update_event', { id: event.id, if_match: etag, title: 'Choir concert (moved)' });
    expect(updated.structuredContent).toMatchObject({ id: event.id, title: 'Choir concert (moved)' });
    const stale = await run(admin, 'update_event', { id: event.id, if_match: etag, title: 'Lost' });
    expect(stale.isError).toBe(true);
    expect(stale.json).toMatchObject({ code: 'rest_precondition_failed', data: { status: 412 } });

    const ical = await run(admin, 'get_event_ical', { id: event.id });
    const text = ical.content[0].type === 'text' ? ical.content[0].text : '';
    expect(text).toMatch(/^BEGIN:VCALENDAR\r\n/);
    expect(text).toMatch(/\r\nSUMMARY[;:].*Choir concert \(moved\)\r\n/);

    const occurrences = await run(admin, 'list_event_occurrences', { id: event.id });
    expect(occurrences.isError).toBeFalsy();

    const current = etagOf(await run(admin, 'get_event', { id: event.id }));
    const deleted = await run(admin, 'delete_event', { id: event.id, if_match: current });
    expect(deleted.structuredContent).toMatchObject({ id: event.id });
    const gone = await http(service)
      .get(`${NS}/events/${event.id}`)
      .auth(...service.as('administrator'));
    // in the trash, as after the REST delete: its editors still read it there, as in the plugin
    expect(gone.status).toBe(200);
    expect(gone.body.status).toBe('trash');
  });

  it.each([
    ['venue', 'venues', { venue: 'Boathouse', status: 'publish' }, { venue: 'Boathouse on the lake' }, {}],
    ['organizer', 'organizers', { organizer: 'Friends', status: 'publish' }, { organizer: 'Friends of music' }, {}],
    ['category', 'categories', { name: 'Concerts' }, { name: 'Concerts and recitals' }, { hide_empty: false }],
    ['tag', 'tags', { name: 'choir' }, { name: 'choirs' }, { hide_empty: false }],
  ] as const)('lists, reads, creates, updates and deletes a %s', async (kind, plural, create, update, listArgs) => {
    const created = await run(admin, `create_${kind}`, create);
    expect(created.isError).toBeFalsy();
    const id = (created.structuredContent as { id: number }).id;
    const listed = await run(admin, `list_${plural}`, listArgs);
    expect(JSON.stringify(listed.structuredContent)).toContain(`"id":${id}`);
    const read = await run(admin, `get_${kind}`, { id });
    const updated = await run(admin, `update_${kind}`, { id, if_match: etagOf(read), ...update });
    expect(updated.structuredContent).toMatchObject(update);
    const deleted = await run(admin, `delete_${kind}`, { id });
    expect(deleted.isError).toBeFalsy();
  });

  it('has called every generated tool', () => {
    expect([...called].sort()).toEqual([...tools.keys()].sort());
  });

  it('shows each caller only the tools its role may use, and refuses calls as REST does', async () => {
    const anonymous = await connectHttp(service);
    const anonymousTools = (await anonymous.listTools()).tools.map((t) => t.name);
    expect(anonymousTools).toContain('list_events');
    expect(anonymousTools).not.toContain('create_event');
    const refused = await call(anonymous, tools, 'create_event', { title: 'x', start_date: DAY, end_date: DAY }, ajv);
    expect(refused.isError).toBe(true);
    expect(refused.json).toMatchObject({ code: 'rest_forbidden', data: { status: 401 } });
    await anonymous.close();

    const contributor = await connectHttp(service, service.as('contributor'));
    const mine = (await contributor.listTools()).tools.map((t) => t.name);
    expect(mine).toContain('create_event');
    expect(mine).not.toContain('create_category');
    const pending = await call(
      contributor,
      tools,
      'create_event',
      { title: 'Wants publishing', start_date: `${DAY} 10:00:00`, end_date: `${DAY} 11:00:00`, status: 'publish' },
      ajv,
    );
    // as through REST: a contributor cannot publish, the event waits for review
    expect(pending.structuredContent).toMatchObject({ status: 'pending' });
    const category = await call(contributor, tools, 'create_category', { name: 'Not mine' }, ajv);
    expect(category.json).toMatchObject({ code: 'rest_forbidden', data: { status: 403 } });
    await contributor.close();
  });

  it('lets a read-only application password read and nothing else', async () => {
    const key = await http(service)
      .post(`${NS}/users/me/application-passwords`)
      .auth(...service.as('editor'))
      .send({ name: 'Assistant', scope: 'read' });
    const reader = await connectHttp(service, [service.users.editor.login, key.body.password]);
    const names = (await reader.listTools()).tools.map((t) => t.name);
    expect(names.every((name) => name.startsWith('list_') || name.startsWith('get_'))).toBe(true);
    expect((await call(reader, tools, 'list_events', {}, ajv)).isError).toBeFalsy();
    const write = await call(reader, tools, 'create_tag', { name: 'nope' }, ajv);
    expect(write.json).toMatchObject({ code: 'rest_forbidden', data: { status: 403 } });
    await reader.close();
  });

  it('answers an invalid date with isError naming the parameter, in French for Accept-Language: fr', async () => {
    const english = await call(admin, tools, 'list_events', { start_date: 'not a date' }, ajv);
    expect(english.isError).toBe(true);
    expect(english.json).toMatchObject({
      code: 'rest_invalid_param',
      data: { params: { start_date: expect.any(String) } },
    });
    const french = await connectHttp(service, service.as('administrator'), { 'accept-language': 'fr-FR, en;q=0.5' });
    const result = await call(french, tools, 'list_events', { start_date: 'not a date' }, ajv);
    expect(result.isError).toBe(true);
    expect(result.json.code).toBe('rest_invalid_param');
    expect(result.json.message).toContain('start_date');
    expect(result.json.message).not.toBe(english.json.message);
    const rest = await http(service).get(`${NS}/events?start_date=not%20a%20date&i18n_language=fr`);
    expect(result.json.message).toBe(rest.body.message);
    // an explicit i18n_language argument wins over the header
    const german = await call(french, tools, 'list_events', { start_date: 'not a date', i18n_language: 'de' }, ajv);
    const restDe = await http(service).get(`${NS}/events?start_date=not%20a%20date&i18n_language=de`);
    expect(german.json.message).toBe(restDe.body.message);
    await french.close();
  });

  it('writes the same audit entries and change-feed records as the REST call it mirrors', async () => {
    const start = await http(service).get(`${NS}/changes`);
    const cursor = start.body.next_cursor as string;
    const body = { name: 'Mirrored', description: 'Same either way' };
    const viaMcp = await call(admin, tools, 'create_tag', body, ajv);
    const viaRest = await http(service)
      .post(`${NS}/tags`)
      .auth(...service.as('administrator'))
      .send({ ...body, name: 'Mirrored too' });
    const mcpId = (viaMcp.structuredContent as { id: number }).id;
    const audit = await http(service)
      .get(`${NS}/audit?resource=tag`)
      .auth(...service.as('administrator'));
    const entry = (id: number) => {
      const found = audit.body.audit.find((e: { record: string }) => e.record === String(id));
      const { id: _, date_utc: __, record: ___, changes, ...rest } = found;
      return { ...rest, fields: Object.keys(changes ?? {}).sort() };
    };
    expect(entry(mcpId)).toEqual(entry(viaRest.body.id));
    const changes = await http(service).get(`${NS}/changes?cursor=${encodeURIComponent(cursor)}`);
    const kinds = changes.body.changes.map((c: { resource: string; id: number; action: string }) => [
      c.resource,
      c.id,
      c.action,
    ]);
    expect(kinds).toEqual([
      ['tag', mcpId, 'created'],
      ['tag', viaRest.body.id, 'created'],
    ]);
  });

  it('serves the OpenAPI document and events as resources', async () => {
    const { resources } = await admin.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['calendar://openapi.json']);
    const doc = await admin.readResource({ uri: 'calendar://openapi.json' });
    const text = (doc.contents[0] as { text: string }).text;
    expect(JSON.parse(text).openapi).toBe('3.1.1');
    const { resourceTemplates } = await admin.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['calendar://events/{id}']);
    const created = await call(
      admin,
      tools,
      'create_event',
      { title: 'Attached', start_date: `${DAY} 09:00:00`, end_date: `${DAY} 10:00:00`, status: 'publish' },
      ajv,
    );
    const id = (created.structuredContent as { id: number }).id;
    const event = await admin.readResource({ uri: `calendar://events/${id}` });
    expect(JSON.parse((event.contents[0] as { text: string }).text)).toMatchObject({ id, title: 'Attached' });
    await expect(admin.readResource({ uri: 'calendar://events/999999' })).rejects.toThrow();
  });

  it('refuses wrong credentials with 401 before any tool runs, a foreign Origin with 403, a body over the limit', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(mcpUrl(service), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
    const wrong = await post({ authorization: `Basic ${Buffer.from('administrator-user:wrong').toString('base64')}` });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ code: 'incorrect_password' });
    const origin = await post({ origin: 'http://evil.example' });
    expect(origin.status).toBe(403);
    const ok = await post({ origin: 'http://localhost:3000' });
    expect(ok.status).toBe(200);
    const huge = await fetch(mcpUrl(service), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(1_100_000) } }),
    });
    expect(huge.status).toBe(413); // BODY_LIMIT, as for REST
    const get = await fetch(mcpUrl(service), { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
  });
});
