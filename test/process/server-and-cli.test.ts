/**
 * The service as operators run it, on every engine: the server process (migrations at start-up, bootstrap
 * administrator, graceful SIGTERM) and the user CLI.
 */
import { ENGINES, freshDatabaseUrl } from '../support/engines';
import { cli, exited, startServer } from './support';

describe.each(ENGINES)('operating on %s', (engine) => {
  let database: { url: string; drop(): Promise<void> };
  beforeAll(async () => {
    database = await freshDatabaseUrl(engine);
  });
  afterAll(() => database.drop());

  it('manages users with the CLI', () => {
    const created = cli(database.url, 'user', 'create', '--login', 'carol', '--role', 'editor');
    expect(created.status).toBe(0);
    expect(created.lines).toEqual([
      { id: expect.any(Number), login: 'carol', role: 'editor', password: expect.stringMatching(/^.{20,}$/) },
    ]);
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
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Persistent' }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    server.kill('SIGTERM');
    expect(await exited(server)).toBe(0);

    server = await startServer(database.url, port, env); // migrations are idempotent, the administrator exists already
    const read = await fetch(`http://127.0.0.1:${port}/calendar/events/v1/categories/${id}`);
    expect(read.status).toBe(200);
    expect(((await read.json()) as { name: string }).name).toBe('Persistent');
    const doc = await fetch(`http://127.0.0.1:${port}/calendar/events/v1/doc`);
    expect(((await doc.json()) as { servers: Array<{ url: string }> }).servers[0].url).toBe(
      `http://127.0.0.1:${port}/calendar/events/v1`,
    );
    server.kill('SIGTERM');
    expect(await exited(server)).toBe(0);
  });
});
