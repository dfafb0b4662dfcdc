/**
 * `Accept-Language: *` (what Node's fetch and many clients send) means the site's language, as no header does; a
 * real language weighted above `*` still wins. Through `/mcp` and through REST, on each engine.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';
import { call, connectHttp, schemaValidator } from './support';

describe.each(ENGINES)('Accept-Language on %s', (engine) => {
  let service: TestService;
  const ajv = schemaValidator();
  const clients: Client[] = [];

  beforeAll(async () => {
    service = await startService(engine, { DEFAULT_LANGUAGE: 'fr' });
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await service.close();
  });

  const restMessage = async (language: string) =>
    (await http(service).get(`${NS}/events?start_date=not%20a%20date&i18n_language=${language}`)).body.message;

  const mcpMessage = async (acceptLanguage?: string) => {
    const client = await connectHttp(service, undefined, acceptLanguage ? { 'accept-language': acceptLanguage } : {});
    clients.push(client);
    const tools = new Map<string, Tool>((await client.listTools()).tools.map((tool) => [tool.name, tool]));
    const result = await call(client, tools, 'list_events', { start_date: 'not a date' }, ajv);
    expect(result.isError).toBe(true);
    return (result.json as { message: string }).message;
  };

  it('answers MCP errors in the site language for `*` and for no header', async () => {
    const french = await restMessage('fr');
    expect(french).not.toBe(await restMessage('nl'));
    expect(await mcpMessage('*')).toBe(french);
    expect(await mcpMessage()).toBe(french);
    expect(await mcpMessage('*, de;q=0.5')).toBe(french);
  });

  it('lets a language weighted above `*` win', async () => {
    expect(await mcpMessage('de, *;q=0.5')).toBe(await restMessage('de'));
    expect(await mcpMessage('en-GB, *')).toBe(await restMessage('en'));
  });

  it('answers REST errors in the site language whatever Accept-Language says', async () => {
    const answer = await http(service).get(`${NS}/events?start_date=not%20a%20date`).set('Accept-Language', '*');
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe(await restMessage('fr'));
  });
});
