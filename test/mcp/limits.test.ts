/**
 * What one `/mcp` request may cost and say, on each engine: a batch of more than 20 messages is refused before any
 * runs, each call of a batch is counted and answered with its REST body (structured and as text), calls run four at a
 * time, arguments are checked against the tool's input schema (an id that names another route, `constructor`), and
 * an internal failure's text never reaches the caller.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';
import { loadSpec } from '../../src/http/spec';
import { createMcpServer } from '../../src/mcp/server';
import { generateTools } from '../../src/mcp/tools';
import type { InnerRequest } from '../../src/mcp/dispatch';
import { call, connectHttp, mcpUrl, schemaValidator } from './support';

const callOf = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

async function post(service: TestService, body: unknown) {
  return fetch(mcpUrl(service), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe.each(ENGINES)('MCP limits on %s', (engine) => {
  let service: TestService;
  let client: Client;
  let tools: Map<string, Tool>;
  const ajv = schemaValidator();

  beforeAll(async () => {
    service = await startService(engine);
    client = await connectHttp(service);
    tools = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool]));
  });
  afterAll(async () => {
    await client.close();
    await service.close();
  });

  const callsCounted = async () => {
    const metric = await service.app.locals.context.metrics.registry.getSingleMetricAsString('mcp_tool_calls_total');
    return [...String(metric).matchAll(/tool="list_tags"} (\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
  };

  it('refuses a batch of more than 20 messages before running any, and counts each call of a smaller one', async () => {
    const before = await callsCounted();
    const tooMany = await post(
      service,
      Array.from({ length: 21 }, (_, i) => callOf(i + 1, 'list_tags', {})),
    );
    expect(tooMany.status).toBe(400);
    expect(await tooMany.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'A batch holds at most 20 messages.' },
      id: null,
    });
    expect(await callsCounted()).toBe(before);
    const twenty = await post(
      service,
      Array.from({ length: 20 }, (_, i) => callOf(i + 1, 'list_tags', {})),
    );
    expect(twenty.status).toBe(200);
    const answers = (await twenty.json()) as Array<{ id: number; result: { isError?: boolean } }>;
    expect(answers).toHaveLength(20);
    expect(answers.every((answer) => answer.result && !answer.result.isError)).toBe(true);
    expect(await callsCounted()).toBe(before + 20);
  });

  it('answers each call of a batch with its REST body, as structured content and as text', async () => {
    const created = await http(service)
      .post(`${NS}/tags`)
      .auth(...service.as('administrator'))
      .send({ name: 'Quoted "words" and \\ a line\u2028separator' });
    const rest = await http(service).get(`${NS}/tags/${created.body.id}`);
    const answer = await post(service, [
      callOf(1, 'get_tag', { id: created.body.id }),
      callOf(2, 'list_tags', {}),
      callOf(3, 'get_tag', { id: 999_999 }),
    ]);
    const text = await answer.text();
    expect(text).not.toContain('raw-json:'); // every stand-in was replaced by its body
    const results = new Map(
      (JSON.parse(text) as Array<{ id: number; result: CallToolResult }>).map((a) => [a.id, a.result]),
    );
    expect(results.get(1)?.structuredContent).toEqual(rest.body);
    for (const id of [1, 2]) {
      const result = results.get(id) as CallToolResult;
      expect(result.structuredContent).toEqual(JSON.parse((result.content[0] as { text: string }).text));
    }
    expect(results.get(3)).toMatchObject({ isError: true });
    expect(results.get(3)?.structuredContent).toBeUndefined();
  });

  it("checks arguments against the tool's schema: an id naming another route, a number as text", async () => {
    const ical = await call(client, tools, 'get_event', { id: 'ical' }, ajv);
    expect(ical.isError).toBe(true);
    expect(ical.json).toMatchObject({
      code: 'rest_invalid_param',
      data: { status: 400, params: { id: expect.any(String) } },
    });
    expect(JSON.stringify(ical.json)).not.toContain('BEGIN:VCALENDAR');
    const missing = await call(client, tools, 'get_event', {}, ajv);
    expect(missing.json).toMatchObject({ code: 'rest_missing_callback_param', data: { params: ['id'] } });
    const created = await http(service)
      .post(`${NS}/tags`)
      .auth(...service.as('administrator'))
      .send({ name: 'Checked' });
    const asText = await call(client, tools, 'get_tag', { id: String(created.body.id) }, ajv);
    expect(asText.structuredContent).toMatchObject({ id: created.body.id, name: 'Checked' });
  });

  it('sends no argument that is not a property of the schema, whatever its name', async () => {
    const seen: string[] = [];
    const server = serverAnswering(async (request) => {
      seen.push(request.url);
      return TAGS;
    });
    const inner = await connectInMemory(server);
    await inner.callTool({
      name: 'list_tags',
      arguments: { constructor: 'x', toString: 'y', __proto__: 'z', page: 2 },
    });
    expect(seen).toEqual([`/${NS.slice(1)}/tags?page=2`]);
    await inner.close();
  });

  it('runs the calls of one request four at a time', async () => {
    let running = 0;
    let most = 0;
    const server = serverAnswering(async () => {
      most = Math.max(most, ++running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      return TAGS;
    });
    const inner = await connectInMemory(server);
    await Promise.all(Array.from({ length: 12 }, () => inner.callTool({ name: 'list_tags', arguments: {} })));
    expect(most).toBe(4);
    await inner.close();
  });

  it("answers an internal failure with REST's generic error, and logs its text", async () => {
    const logged: unknown[] = [];
    const failing = async (): Promise<typeof TAGS> => {
      throw new RangeError('Maximum call stack size exceeded');
    };
    const server = serverAnswering(failing, {
      request: { messageLanguage: 'en' },
      onError: (error) => logged.push(error),
    });
    const inner = await connectInMemory(server);
    const result = await inner.callTool({ name: 'list_tags', arguments: {} });
    const text = (result.content as Array<{ text: string }>)[0].text;
    expect(result.isError).toBe(true);
    expect(JSON.parse(text)).toMatchObject({ code: 'rest_internal_error', data: { status: 500 } });
    expect(text).not.toContain('Maximum call stack');
    expect(logged).toEqual([expect.any(RangeError)]);
    await inner.close();
  });

  it('never tells a deeply nested argument’s failure in the answer', async () => {
    const nested = `${'['.repeat(20_000)}"x"${']'.repeat(20_000)}`;
    const body = JSON.stringify(callOf(1, 'list_events', { search: '' })).replace('""', nested);
    const answer = await post(service, body);
    const text = await answer.text();
    expect(answer.status).toBe(200);
    expect(text).toContain('rest_invalid_param');
    expect(text).not.toContain('Maximum call stack');
    expect(text).not.toContain('RangeError');
  });
});

async function connectInMemory(server: ReturnType<typeof createMcpServer>): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'limits', version: '1' });
  await client.connect(clientSide);
  return client;
}

const TAGS = { status: 200, headers: {}, body: '{"tags":[]}' };

/** An MCP server over the spec's tools whose REST calls `rest` answers, as the endpoint builds one per request. */
function serverAnswering(
  rest: (request: InnerRequest) => Promise<typeof TAGS>,
  extra: Partial<Parameters<typeof createMcpServer>[0]> = {},
): ReturnType<typeof createMcpServer> {
  return createMcpServer({
    tools: generateTools(loadSpec()),
    rest,
    basePath: '',
    headers: {},
    request: {},
    version: '1',
    ...extra,
  });
}
