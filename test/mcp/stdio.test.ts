/**
 * The CLI's `mcp` command over stdio, with the SDK's client spawning it, on each engine: against the local
 * database as a named user (every tool called; a contributor's event waits for review; the audit trail says `cli`),
 * and against a running service with an application password (its tools and refusals, unchanged).
 */
import type { Client as ClientType } from '@modelcontextprotocol/sdk/client/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { createDb } from '../../src/db/knex';
import { migrate } from '../../src/db/migrate';
import { createUser } from '../../src/users/repository';
import { ENGINES, freshDatabaseUrl } from '../support/engines';
import { http, NS, startService } from '../support/app';
import { ROOT, TSX } from '../process/support';
import { call, exerciseEveryTool, schemaValidator } from './support';

async function spawnMcp(args: string[], env: Record<string, string> = {}): Promise<ClientType> {
  const client = new Client({ name: 'calendar-stdio-tests', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: TSX,
      args: ['scripts/cli.ts', 'mcp', ...args],
      cwd: ROOT,
      env: { ...(process.env as Record<string, string>), ...env },
      stderr: 'pipe',
    }),
  );
  return client;
}

const tools = async (client: ClientType) =>
  new Map<string, Tool>((await client.listTools()).tools.map((t) => [t.name, t]));

/** Each test spawns the CLI (tsx compiles it first): on a loaded machine that alone takes tens of seconds. */
const SPAWNING = 300_000;

describe.each(ENGINES)('MCP over stdio on %s', (engine) => {
  const ajv = schemaValidator();

  it(
    'serves every tool on the local database as a named user, with its role',
    async () => {
      const database = await freshDatabaseUrl(engine);
      const db = createDb(database.url);
      await migrate(db);
      await createUser(db, 'desk', 'administrator', 'a long enough password');
      await createUser(db, 'helper', 'contributor', 'a long enough password');
      await db.destroy();
      try {
        const admin = await spawnMcp(['--login', 'desk'], { DATABASE_URL: database.url });
        const all = await tools(admin);
        expect(all.size).toBe(27);
        const called = await exerciseEveryTool(admin, all, ajv);
        expect([...called].sort()).toEqual([...all.keys()].sort());
        const invalid = await call(admin, all, 'list_events', { start_date: 'no date' }, ajv);
        expect(invalid.isError).toBe(true);
        expect(invalid.json).toMatchObject({
          code: 'rest_invalid_param',
          data: { params: { start_date: expect.any(String) } },
        });
        await admin.close();

        const contributor = await spawnMcp(['--login', 'helper'], { DATABASE_URL: database.url });
        const mine = await tools(contributor);
        expect(mine.has('create_category')).toBe(false);
        const pending = await call(
          contributor,
          mine,
          'create_event',
          { title: 'Review me', start_date: '2027-06-18 10:00:00', end_date: '2027-06-18 11:00:00', status: 'publish' },
          ajv,
        );
        expect(pending.structuredContent).toMatchObject({ status: 'pending' });
        await contributor.close();

        const check = createDb(database.url);
        const entries = await check('audit_log').select('via', 'login').orderBy('id');
        await check.destroy();
        expect(entries.length).toBeGreaterThan(0);
        expect(entries.every((e: { via: string }) => e.via === 'cli')).toBe(true);
      } finally {
        await database.drop();
      }
    },
    SPAWNING,
  );

  it(
    'bridges to a running service with an application password, its permissions unchanged',
    async () => {
      const service = await startService(engine);
      try {
        const key = await http(service)
          .post(`${NS}/users/me/application-passwords`)
          .auth(...service.as('editor'))
          .send({ name: 'Desktop assistant', scope: 'read' });
        const url = `http://127.0.0.1:${(service.server.address() as { port: number }).port}`;
        const reader = await spawnMcp([
          '--url',
          url,
          '--user',
          service.users.editor.login,
          '--password',
          key.body.password,
        ]);
        const mine = await tools(reader);
        expect([...mine.keys()].every((name) => /^(list|get)_/.test(name))).toBe(true);
        expect((await call(reader, mine, 'list_events', {}, ajv)).isError).toBeFalsy();
        const write = await call(reader, mine, 'create_tag', { name: 'nope' }, ajv);
        expect(write.json).toMatchObject({ code: 'rest_forbidden', data: { status: 403 } });
        const { resources } = await reader.listResources();
        expect(resources.map((r) => r.uri)).toEqual(['calendar://openapi.json']);
        await reader.close();
      } finally {
        await service.close();
      }
    },
    SPAWNING,
  );
});
