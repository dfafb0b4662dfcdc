/**
 * The README's first screen works as written (D98): its "First steps" commands, taken from the README itself, run
 * in bash against a server started the way their first line starts it (the same ADMIN_LOGIN and ADMIN_PASSWORD) on a
 * database of this test, on every engine: they make an application password, create an event with it and read it
 * back. The block must end within the first screen, and the README keeps its install and test commands.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ENGINES, freshDatabaseUrl } from '../support/engines';
import { freePort, killAll, ROOT, startServer } from './support';

const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
/** What fits before scrolling. */
const FIRST_SCREEN = 45;

/** The first ```sh block after the heading, with the line it ends on. */
function block(heading: string): { code: string; endLine: number } {
  const at = README.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`README has no heading "${heading}"`);
  const match = /```sh\n([\s\S]*?)```/.exec(README.slice(at));
  if (!match) throw new Error(`no sh block after "${heading}"`);
  const end = at + match.index + match[0].length;
  return { code: match[1], endLine: README.slice(0, end).split('\n').length };
}

describe('the README', () => {
  it('keeps its install and test commands on the first screen', () => {
    const { code, endLine } = block('## Run it');
    expect(code).toMatch(/^npm ci && npm start\s+#/m);
    expect(code).toMatch(/^npm ci && npm test\s+#/m);
    expect(endLine).toBeLessThanOrEqual(FIRST_SCREEN);
  });

  it('ends its first steps within the first screen', () => {
    expect(block('### First steps: log in, write, read').endLine).toBeLessThanOrEqual(FIRST_SCREEN);
  });
});

describe.each(ENGINES)("the README's first steps on %s", (engine) => {
  let database: { url: string; drop(): Promise<void> };
  beforeAll(async () => {
    database = await freshDatabaseUrl(engine);
  });
  afterAll(async () => {
    await killAll();
    await database.drop();
  });

  it('take a newcomer from the first start to an authenticated write and read', async () => {
    const { code } = block('### First steps: log in, write, read');
    const lines = code.split('\n');
    const startLine = lines.find((line) => /\bnpm start &$/.test(line));
    if (!startLine) throw new Error('the first steps do not start the server with `npm start &`');
    const env = Object.fromEntries(
      [...startLine.matchAll(/\b(ADMIN_LOGIN|ADMIN_PASSWORD)=('[^']*'|\S+)/g)].map(([, name, value]) => [
        name,
        value.replace(/^'|'$/g, ''),
      ]),
    );
    expect(Object.keys(env).sort()).toEqual(['ADMIN_LOGIN', 'ADMIN_PASSWORD']);

    const port = await freePort();
    await startServer(database.url, port, env);
    const script = lines
      .filter((line) => line !== startLine)
      .join('\n')
      .replaceAll('http://localhost:8080', `http://127.0.0.1:${port}`);
    expect(script).not.toContain('localhost');
    // stdin from /dev/null: bash takes a socket on stdin for a remote shell and reads the system's bashrc (rshd mode)
    const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: database.url },
      timeout: 120_000,
    });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    const event = JSON.parse(run.stdout);
    expect(event).toMatchObject({
      id: expect.any(Number),
      title: 'Picnic',
      status: 'publish',
      author: expect.any(String),
      start_date: '2030-07-01 12:00:00',
      end_date: '2030-07-01 14:00:00',
    });
  });
});
