/**
 * The stdio bridge's password (the CLI's `mcp --url`): taken from a file or the environment, `--password` still
 * taken but warned about (other users see it in `ps`), a URL carrying credentials refused without being printed
 * back, and plain http:// to another machine refused unless asked for (then warned about). The bridge itself runs
 * against a service on each engine with the password from a file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { runCli } from '../../src/cli';
import { ENGINES } from '../support/engines';
import { http, NS, startService } from '../support/app';
import { ROOT, TSX } from '../process/support';

const SECRET = 'abcd efgh ijkl mnop qrst uvwx';
/** Nothing listens on port 1: a bridge that gets as far as connecting fails there (exit 1). */
const NOWHERE = 'http://127.0.0.1:1';

/** Runs the CLI in this process with `env` added, collecting stderr. */
async function run(argv: string[], env: Record<string, string> = {}) {
  const errors: string[] = [];
  const saved = { ...process.env };
  Object.assign(process.env, env);
  const writeErr = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    errors.push(chunk.toString());
    return true;
  });
  try {
    const code = await runCli(['mcp', ...argv], '1.0.0', (line) => errors.push(`${line}\n`));
    return { code, stderr: errors.join('') };
  } finally {
    writeErr.mockRestore();
    process.env = saved;
  }
}

describe('the stdio bridge’s credentials on the command line', () => {
  it('refuses a --url carrying credentials, without printing them', async () => {
    const { code, stderr } = await run(['--url', `http://ed:sekrit@127.0.0.1:1`, '--user', 'ed'], {
      CALENDAR_APP_PASSWORD: SECRET,
    });
    expect(code).toBe(2);
    expect(stderr).toContain('must not carry credentials (http://***@127.0.0.1:1)');
    expect(stderr).not.toContain('sekrit');
    expect(stderr).not.toContain('ed:');
  });

  it('refuses plain http:// to another machine unless asked, and then warns', async () => {
    const env = { CALENDAR_APP_PASSWORD: SECRET };
    const refused = await run(['--url', 'http://calendar.invalid', '--user', 'ed'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('http://calendar.invalid is plain http');
    expect(refused.stderr).toContain('--allow-insecure-http');
    const allowed = await run(['--url', 'http://calendar.invalid', '--user', 'ed', '--allow-insecure-http'], env);
    expect(allowed.stderr).toMatch(/^warning: http:\/\/calendar\.invalid is plain http/m);
    expect(allowed.code).toBe(1); // it went on, to a host that does not exist
    expect(allowed.stderr).not.toContain(SECRET);
  });

  it('takes the password from CALENDAR_APP_PASSWORD quietly, and from --password with a warning', async () => {
    const quiet = await run(['--url', NOWHERE, '--user', 'ed'], { CALENDAR_APP_PASSWORD: SECRET });
    expect(quiet.code).toBe(1);
    expect(quiet.stderr).not.toContain('warning');
    const loud = await run(['--url', NOWHERE, '--user', 'ed', '--password', SECRET]);
    expect(loud.code).toBe(1);
    expect(loud.stderr).toMatch(/^warning: --password is visible to other users of this machine \(ps\)/m);
    expect(loud.stderr).not.toContain(SECRET);
    const none = await run(['--url', NOWHERE, '--user', 'ed']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('CALENDAR_APP_PASSWORD');
  });

  it('masks credentials in any URL it tells', async () => {
    const { maskCredentials } = await import('../../src/mcp/stdio');
    expect(maskCredentials('failed: http://ed:p@ss/word@host:8080/mcp and https://x@y/')).toBe(
      'failed: http://***@ss/word@host:8080/mcp and https://***@y/',
    );
    expect(maskCredentials('to http://ed:p@ss@host/mcp')).toBe('to http://***@host/mcp');
  });
});

describe.each(ENGINES)('the stdio bridge on %s', (engine) => {
  it('bridges with the password read from --password-file', async () => {
    const service = await startService(engine);
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'bridge-'));
    try {
      const key = await http(service)
        .post(`${NS}/users/me/application-passwords`)
        .auth(...service.as('editor'))
        .send({ name: 'Desktop assistant', scope: 'read' });
      const file = path.join(folder, 'key');
      fs.writeFileSync(file, `${key.body.password}\n`, { mode: 0o600 });
      const url = `http://127.0.0.1:${(service.server.address() as { port: number }).port}`;
      const transport = new StdioClientTransport({
        command: TSX,
        args: ['scripts/cli.ts', 'mcp', '--url', url, '--user', service.users.editor.login, '--password-file', file],
        cwd: ROOT,
        env: process.env as Record<string, string>,
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const client = new Client({ name: 'bridge-tests', version: '1.0.0' });
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('list_events');
      expect(tools.map((tool) => tool.name)).not.toContain('create_event');
      await client.close();
      expect(stderr).not.toContain('warning');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
      await service.close();
    }
  }, 300_000);
});
