/** MCP clients for the tests (the SDK's own), and the JSON Schema 2020-12 checks of the generated schemas. */
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import Ajv2020 from 'ajv/dist/2020';
import { withFormats } from '../support/formats';
import type { TestService } from '../support/app';
import { basic } from '../support/kit';

export function mcpUrl(service: TestService): URL {
  return new URL(`http://127.0.0.1:${(service.server.address() as AddressInfo).port}/mcp`);
}

/** A client over Streamable HTTP with these credentials (none: anonymous) and extra headers. */
export async function connectHttp(
  service: TestService,
  credentials?: [string, string],
  headers: Record<string, string> = {},
): Promise<Client> {
  // a loaded machine can leave a kept-alive socket idle past Node's 5 s, and fetch then reuses a socket the server is
  // closing (ECONNRESET): the server keeps idle sockets for a minute here, which fetch learns from `Keep-Alive`
  service.server.keepAliveTimeout = 60_000;
  const client = new Client({ name: 'calendar-tests', version: '1.0.0' });
  const all = { ...headers, ...(credentials ? { authorization: basic(...credentials) } : {}) };
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(service), { requestInit: { headers: all } }));
  return client;
}

/** Strict 2020-12 (unknown keywords and formats refused); only ajv's type and `required` lints are off. */
export function schemaValidator(): Ajv2020 {
  return withFormats(new Ajv2020({ strict: true, strictTypes: false, strictRequired: false, allErrors: true }));
}

/** The tool's result, checked: its structured content validates against the tool's output schema. */
export async function call(
  client: Client,
  tools: Map<string, Tool>,
  name: string,
  args: Record<string, unknown>,
  ajv: Ajv2020,
): Promise<CallToolResult & { json: any }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const tool = tools.get(name);
  if (!result.isError && tool?.outputSchema) {
    const validate = ajv.compile(tool.outputSchema);
    if (!validate(result.structuredContent)) {
      throw new Error(`${name}: structured result outside its schema: ${ajv.errorsText(validate.errors)}`);
    }
  }
  const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { ...result, json };
}

/** The ETag a tool result carries (`_meta`). */
export function etagOf(result: CallToolResult): string {
  return (result._meta as Record<string, string>)['calendar/etag'];
}

/**
 * Calls every tool of the calendar at least once, as an administrator would: an event's life (inline venue and
 * organizer, by search and by date, If-Match update, iCalendar, occurrences, delete), then each other resource's.
 * Returns the names of the tools that answered without error.
 */
export async function exerciseEveryTool(client: Client, tools: Map<string, Tool>, ajv: Ajv2020): Promise<Set<string>> {
  const called = new Set<string>();
  const run = async (name: string, args: Record<string, unknown>) => {
    const result = await call(client, tools, name, args, ajv);
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
    called.add(name);
    return result;
  };
  const day = '2027-06-18';
  const created = await run('create_event', {
    title: 'Every tool',
    start_date: `${day} 19:00:00`,
    end_date: `${day} 21:00:00`,
    status: 'publish',
    venue: { venue: 'Every venue' },
    organizer: [{ organizer: 'Every organizer' }],
  });
  const id = (created.structuredContent as { id: number }).id;
  await run('list_events', { search: 'every tool', start_date: `${day} 00:00`, end_date: `${day} 23:59` });
  const read = await run('get_event', { id });
  await run('update_event', { id, if_match: etagOf(read), title: 'Every tool, updated' });
  await run('get_event_ical', { id });
  await run('list_event_occurrences', { id });
  await run('delete_event', { id });
  const kinds = [
    ['venue', 'venues', { venue: 'Stdio hall', status: 'publish' }, { venue: 'Stdio hall 2' }, {}],
    ['organizer', 'organizers', { organizer: 'Stdio', status: 'publish' }, { organizer: 'Stdio 2' }, {}],
    ['category', 'categories', { name: 'Stdio' }, { name: 'Stdio 2' }, { hide_empty: false }],
    ['tag', 'tags', { name: 'stdio' }, { name: 'stdio 2' }, { hide_empty: false }],
  ] as const;
  for (const [kind, plural, create, update, listArgs] of kinds) {
    const record = (await run(`create_${kind}`, create)).structuredContent as { id: number };
    await run(`list_${plural}`, listArgs);
    const current = await run(`get_${kind}`, { id: record.id });
    await run(`update_${kind}`, { id: record.id, if_match: etagOf(current), ...update });
    await run(`delete_${kind}`, { id: record.id });
  }
  return called;
}
