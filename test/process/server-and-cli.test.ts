/**
 * The service as operators run it, on every engine: the server process (migrations at start-up, bootstrap
 * administrator, graceful SIGTERM) and the user CLI.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ENGINES, freshDatabaseUrl } from '../support/engines';

const ROOT = path.resolve(__dirname, '../..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');

function cli(url: string, ...args: string[]) {
  const run = spawnSync(TSX, ['scripts/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, DATABASE_URL: url }, encoding: 'utf8' });
  return { status: run.status, lines: run.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)), stderr: run.stderr };
}

async function startServer(url: string, port: number, env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(TSX, ['src/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) return child;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('the server did not become ready');
}

const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

describe.each(ENGINES)('operating on %s', (engine) => {
  let database: { url: string; drop(): Promise<void> };
  beforeAll(async () => { database = await freshDatabaseUrl(engine); });
  afterAll(() => database.drop());

  it('manages users with the CLI', () => {
    const created = cli(database.url, 'user', 'create', '--login', 'carol', '--role', 'editor');
    expect(created.status).toBe(0);
    expect(created.lines).toEqual([{ id: expect.any(Number), login: 'carol', role: 'editor', password: expect.stringMatching(/^.{20,}$/) }]);
    const duplicate = cli(database.url, 'user', 'create', '--login', 'carol', '--role', 'author');
    expect(duplicate.status).toBe(2);
    expect(duplicate.stderr).toMatch(/exists/);
    expect(cli(database.url, 'user', 'create', '--login', 'dan', '--role', 'overlord').status).toBe(2);
    const reset = cli(database.url, 'user', 'reset-password', '--login', 'carol');
    expect(reset.lines[0]).toMatchObject({ login: 'carol', role: 'editor' });
    expect(reset.lines[0].password).not.toBe(created.lines[0].password);
    const listed = cli(database.url, 'user', 'list');
    expect(listed.lines).toEqual([expect.objectContaining({ login: 'carol', role: 'editor' })]);
    expect(JSON.stringify(listed.lines)).not.toMatch(/password|scrypt/);
    expect(cli(database.url, 'user', 'reset-password', '--login', 'nobody').status).toBe(2);
    expect(cli(database.url, 'nonsense').status).toBe(2);
  });

  it('starts, migrates, creates the administrator, keeps data across restarts and stops gracefully on SIGTERM', async () => {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const env = { ADMIN_LOGIN: 'boss', ADMIN_PASSWORD: 'a long admin password' };
    const auth = `Basic ${Buffer.from('boss:a long admin password').toString('base64')}`;
    let server = await startServer(database.url, port, env);
    const created = await fetch(`http://127.0.0.1:${port}/calendar/events/v1/categories`, {
      method: 'POST', headers: { Authorization: auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Persistent' }),
    });
    expect(created.status).toBe(201);
    const { id } = await created.json() as { id: number };
    server.kill('SIGTERM');
    expect(await exited(server)).toBe(0);

    server = await startServer(database.url, port, env); // migrations are idempotent, the administrator exists already
    const read = await fetch(`http://127.0.0.1:${port}/calendar/events/v1/categories/${id}`);
    expect(read.status).toBe(200);
    expect((await read.json() as { name: string }).name).toBe('Persistent');
    const doc = await fetch(`http://127.0.0.1:${port}/calendar/events/v1/doc`);
    expect((await doc.json() as { servers: Array<{ url: string }> }).servers[0].url).toBe(`http://127.0.0.1:${port}/calendar/events/v1/`);
    server.kill('SIGTERM');
    expect(await exited(server)).toBe(0);
  });
});
