/**
 * The same MCP tools over stdio, for desktop assistants that start a command (the CLI's `mcp`, D104). Two ways:
 * - against a running service (`url`, with an application password): a bridge to its `/mcp`, so the tools, the
 *   per-caller list, permissions and errors are that service's, unchanged;
 * - against the local database as a named user (`login`): the app is built in this process and each call is
 *   dispatched into it as the REST request it mirrors, as that user (like every CLI command, trusted with the
 *   database; the audit trail records `via: cli`).
 * stdout carries the protocol only; nothing else may write to it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Express } from 'express';
import { loadConfig } from '../config';
import { createDb } from '../db/knex';
import { migrate } from '../db/migrate';
import type { AppContext } from '../http/context';
import { loadSpec } from '../http/spec';
import { createThrottle } from '../http/throttle';
import { findUserByLogin } from '../users/repository';
import { dispatch } from './dispatch';
import { createMcpServer } from './server';
import { generateTools, instructionsOf } from './tools';

export type StdioOptions =
  | { url: string; login: string; password: string }
  | { login: string; createApp: (context: Omit<AppContext, 'metrics' | 'cache' | 'answers'>) => Express };

/** Serves MCP on stdin/stdout until stdin closes. */
export async function serveStdio(options: StdioOptions, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const server = 'url' in options ? await bridge(options) : await local(options, env);
  const transport = new StdioServerTransport();
  await server.connect(transport);
  await new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  await server.close();
}

async function bridge({ url, login, password }: { url: string; login: string; password: string }): Promise<Server> {
  const authorization = `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
  const client = new Client({ name: 'calendar-events-stdio', version: '1.0.0' });
  const endpoint = new URL(`${url.replace(/\/+$/, '')}/mcp`);
  try {
    await client.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization } } }));
  } catch (error) {
    // what the client says may quote the URL: never with credentials in it
    if (error instanceof Error) error.message = maskCredentials(error.message);
    throw error;
  }
  const remote = client.getServerVersion();
  const server = new Server(
    { name: remote?.name ?? 'calendar-events', version: remote?.version ?? '1.0.0' },
    { capabilities: { tools: {}, resources: {} }, instructions: client.getInstructions() },
  );
  server.setRequestHandler(ListToolsRequestSchema, ({ params }) => client.listTools(params));
  server.setRequestHandler(CallToolRequestSchema, ({ params }) => client.callTool(params));
  server.setRequestHandler(ListResourcesRequestSchema, ({ params }) => client.listResources(params));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, ({ params }) => client.listResourceTemplates(params));
  server.setRequestHandler(ReadResourceRequestSchema, ({ params }) => client.readResource(params));
  server.onclose = () => void client.close();
  return server;
}

/** `text` with the credentials of every URL in it replaced by `***` (`http://***@host/`). */
export function maskCredentials(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/?#]*@/gi, '$1***@');
}

async function local(
  { login, createApp }: Extract<StdioOptions, { createApp: unknown }>,
  env: NodeJS.ProcessEnv,
): Promise<Server> {
  const config = loadConfig(env);
  const db = createDb(config.databaseUrl);
  await migrate(db);
  const user = await findUserByLogin(db, login);
  if (!user) {
    await db.destroy();
    throw new Error(`no user with login "${login}"`);
  }
  const spec = loadSpec();
  const app = createApp({ config, db, spec, throttle: createThrottle(db, config) });
  const caller = { id: user.id, login: user.login, role: user.role, via: 'cli' as const };
  const server = createMcpServer({
    tools: generateTools(spec),
    instructions: instructionsOf(spec),
    rest: (request) => dispatch(app, request),
    basePath: config.basePath,
    caller,
    headers: { host: 'localhost' },
    request: { caller, remoteAddress: '127.0.0.1' },
    version: spec.document.info.version,
  });
  server.onclose = () => void db.destroy();
  return server;
}
