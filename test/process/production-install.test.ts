/**
 * The production install path, in a temporary copy of the project (the files git tracks or would track): the
 * dependencies from the lock, the server built, the devDependencies pruned (`npm prune --omit=dev`, what a
 * deployment keeps), then `npm start` serves and the operator commands run through the package's `bin`
 * (`npx calendar-events`), with no tsx left: a user made by `user create` writes with the password it printed.
 *
 * The dependencies are this checkout's node_modules, hard-linked (`cp -al`): `npm ci` made them from the same lock,
 * and an offline `npm ci` of the copy took 8 minutes on the 2-core test machine (native modules included), where
 * linking takes seconds. Pruning then removes the links of the devDependencies in the copy only. Only the server
 * target is built (`npm run build -- server`): the documentation site (a Redoc build of two minutes) is another
 * target with nothing the CLI or the API needs.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ENGINES, freshDatabaseUrl } from '../support/engines';
import { basic } from '../support/kit';
import { exited, freePort, request, ROOT } from './support';

jest.setTimeout(300_000);

let dir: string;

function run(command: string, args: string[], env: Record<string, string> = {}): SpawnSyncReturns<string> {
  const started = performance.now();
  const result = spawnSync(command, args, { cwd: dir, env: { ...process.env, ...env }, encoding: 'utf8' });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stderr.write(`production install: ${command} ${args.join(' ')}: ${seconds} s\n`);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** The files of the project as a clone would have them: tracked, or new and not ignored. */
function projectFiles(): string[] {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return listed.stdout.split('\0').filter((file) => file && fs.existsSync(path.join(ROOT, file)));
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'calendar-production-'));
  for (const file of projectFiles()) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, file), path.join(dir, file));
  }
  run('cp', ['-al', path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules')]);
  run('npm', ['run', '--silent', 'build', '--', 'server']);
  run('npm', ['prune', '--omit=dev', '--offline', '--no-audit', '--no-fund']);
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

it('leaves no development tools, and the built CLI answers --version', () => {
  expect(fs.existsSync(path.join(dir, 'node_modules', 'tsx'))).toBe(false);
  expect(fs.existsSync(path.join(dir, 'node_modules', 'typescript'))).toBe(false);
  const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  expect(run('npx', ['--offline', 'calendar-events', '--version']).stdout.trim()).toBe(version);
});

describe.each(ENGINES)('a production install on %s', (engine) => {
  it('serves with npm start, and a user made with the bin writes with the password it printed', async () => {
    const database = await freshDatabaseUrl(engine);
    const port = await freePort();
    const env = { DATABASE_URL: database.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
    // its own process group: npm start runs node as a child, and the whole group is ended at the end
    const server = spawn('npm', ['start'], { cwd: dir, env: { ...process.env, ...env }, detached: true });
    let output = '';
    server.stdout.on('data', (chunk) => (output += chunk));
    server.stderr.on('data', (chunk) => (output += chunk));
    try {
      const base = `http://127.0.0.1:${port}`;
      await untilReady(
        server,
        async () => (await request(base, 'GET', '/readyz')).status === 200,
        () => output,
      );
      const created = run(
        'npx',
        ['--offline', 'calendar-events', 'user', 'create', '--login', 'ed', '--role', 'editor'],
        {
          DATABASE_URL: database.url,
        },
      );
      const { login, password } = JSON.parse(created.stdout.trim().split('\n').pop() as string);
      expect(login).toBe('ed');
      const venue = await request(base, 'POST', '/calendar/events/v1/venues', {
        auth: basic(login, password),
        body: { venue: 'Made in production' },
      });
      expect(venue.status).toBe(201);
    } finally {
      if (server.exitCode === null && server.signalCode === null) {
        process.kill(-(server.pid as number), 'SIGTERM');
        await exited(server);
      }
      await database.drop();
    }
  });
});

async function untilReady(server: ChildProcess, ready: () => Promise<boolean>, output: () => string) {
  const deadline = performance.now() + 120_000;
  while (!(await ready())) {
    const gone = server.exitCode !== null || server.signalCode !== null;
    if (gone || performance.now() > deadline) throw new Error(`the server never became ready:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
