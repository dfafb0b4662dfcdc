/**
 * `cli backup` while the server (a child process) takes concurrent writes, on every engine: the backup is restored
 * (SQLite: the copied file; PostgreSQL: `import-dump` of the dump into an empty database), a server started on it
 * has every write acknowledged before the backup began and none sent after it ended, and the copy is intact.
 * The files (a red team's finding): a backup is private (0600) from its first byte, and the partial file of a run
 * killed mid-copy is removed by the next run, which leaves every file not named as one of its partials alone.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import knex from 'knex';
import { ENGINES, freshDatabaseUrl } from '../support/engines';
import { basic, cliAsync, until } from '../support/kit';
import { cli, exited, freePort, INTEGRITY_QUERIES, killAll, outputOf, request, ROOT, startServer } from './support';

const ADMIN = { ADMIN_LOGIN: 'keeper', ADMIN_PASSWORD: 'a backed-up admin password' };
const AUTH = basic(ADMIN.ADMIN_LOGIN, ADMIN.ADMIN_PASSWORD);
const NAMESPACE = '/calendar/events/v1';
const WRITERS = 4;

interface Write {
  id: number;
  title: string;
  sentAt: number;
  ackedAt: number;
}

afterAll(killAll);

describe.each(ENGINES)('backup under concurrent writes on %s', (engine) => {
  it('restores with every acknowledged write and an intact database', async () => {
    const live = await freshDatabaseUrl(engine);
    const restored = await freshDatabaseUrl(engine);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backup-test-'));
    const file = path.join(dir, engine === 'sqlite' ? 'backup.sqlite' : 'backup.jsonl');
    try {
      const port = await freePort();
      const server = await startServer(live.url, port, ADMIN);
      const base = `http://127.0.0.1:${port}`;
      const writes: Write[] = [];
      let stop = false;
      let serial = 0;
      const writer = async (loop: number) => {
        while (!stop) {
          const title = `Backed up ${loop}-${++serial}`;
          const sentAt = performance.now();
          const res = await request(base, 'POST', `${NAMESPACE}/events`, {
            auth: AUTH,
            body: { title, start_date: '2027-07-01 10:00:00', end_date: '2027-07-01 11:00:00' },
            timeoutMs: 30_000,
          });
          if (res.status === 201) writes.push({ id: res.body.id, title, sentAt, ackedAt: performance.now() });
          else if (!stop)
            throw new Error(
              `a write failed during the backup: ${res.status} ${JSON.stringify(res.body)}\n${outputOf(server)}`,
            );
        }
      };
      const writers = Array.from({ length: WRITERS }, (_, i) => writer(i));
      await until(() => writes.length >= 10);
      const backupStarted = performance.now();
      const run = await cliAsync(live.url, 'backup', '--to', file);
      const backupEnded = performance.now();
      await until(() => writes.filter((w) => w.sentAt > backupEnded).length >= 4);
      stop = true;
      await Promise.all(writers);
      server.kill('SIGTERM');

      expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
      const result = JSON.parse(run.stdout.trim());
      expect(result).toMatchObject(engine === 'sqlite' ? { engine, integrity: 'ok' } : { engine });
      const before = writes.filter((w) => w.ackedAt < backupStarted);
      const during = writes.filter((w) => w.sentAt > backupStarted && w.ackedAt < backupEnded);
      const after = writes.filter((w) => w.sentAt > backupEnded);
      expect(before.length).toBeGreaterThan(5);
      expect(during.length).toBeGreaterThan(0); // the service kept answering writes while the backup ran
      expect(after.length).toBeGreaterThan(0);

      if (engine === 'sqlite') {
        fs.copyFileSync(file, restored.url.slice('sqlite:'.length));
        const copy = new Database(file, { readonly: true });
        expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(copy.pragma('foreign_key_check')).toEqual([]);
        copy.close();
      } else {
        const load = cli(restored.url, 'import-dump', '--from', file);
        expect({ status: load.status, stderr: load.stderr }).toEqual({ status: 0, stderr: '' });
        expect(load.lines[0]).toMatchObject({ verified: true });
      }
      const db = knex(
        engine === 'sqlite'
          ? {
              client: 'better-sqlite3',
              connection: { filename: restored.url.slice('sqlite:'.length) },
              useNullAsDefault: true,
            }
          : { client: 'pg', connection: restored.url, pool: { min: 0, max: 1 } },
      );
      try {
        for (const [what, sql] of INTEGRITY_QUERIES) {
          const rows = await db.raw(sql);
          expect([what, Number((Array.isArray(rows) ? rows : rows.rows)[0].n)]).toEqual([what, 0]);
        }
      } finally {
        await db.destroy();
      }

      const restoredPort = await freePort();
      const again = await startServer(restored.url, restoredPort, ADMIN);
      const restoredBase = `http://127.0.0.1:${restoredPort}`;
      for (const w of before) {
        const res = await request(restoredBase, 'GET', `${NAMESPACE}/events/${w.id}`, { auth: AUTH });
        expect([w.id, res.status, res.body.title]).toEqual([w.id, 200, w.title]);
      }
      for (const w of after)
        expect([
          w.id,
          (await request(restoredBase, 'GET', `${NAMESPACE}/events/${w.id}`, { auth: AUTH })).status,
        ]).toEqual([w.id, 404]);
      // the restored service takes writes, with ids past the ones it holds
      const created = await request(restoredBase, 'POST', `${NAMESPACE}/events`, {
        auth: AUTH,
        body: { title: 'After restore', start_date: '2027-08-01 10:00:00', end_date: '2027-08-01 11:00:00' },
      });
      expect(created.status).toBe(201);
      again.kill('SIGTERM');
    } finally {
      await killAll();
      await live.drop();
      await restored.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

/** The id of a process that has exited (a killed run's, as far as its leftovers go). */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid as number;

/** The CLI as node itself (not the tsx launcher, whose SIGKILL would leave the CLI running as an orphan). */
const cliChild = (url: string, ...args: string[]) =>
  spawn(process.execPath, ['--import', 'tsx', 'scripts/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url },
    stdio: 'ignore',
  });

/**
 * Holds the database so that a backup cannot read it, until `release`: on SQLite an exclusive lock on the file
 * (a backup waits for it, then gives up), on PostgreSQL an exclusive lock on a table the dump reads.
 */
async function holdDatabase(engine: string, url: string): Promise<() => Promise<void>> {
  if (engine === 'sqlite') {
    const holder = new Database(url.slice('sqlite:'.length));
    holder.pragma('locking_mode = EXCLUSIVE');
    holder.exec('begin exclusive; select count(*) from posts; commit'); // the lock stays until the connection closes
    return async () => {
      holder.close();
    };
  }
  const holder = knex({ client: 'pg', connection: url, pool: { min: 1, max: 1 } });
  const trx = await holder.transaction();
  await trx.raw('lock table posts in access exclusive mode');
  return async () => {
    await trx.rollback();
    await holder.destroy();
  };
}

describe.each(ENGINES)('backup files on %s', (engine) => {
  let database: { url: string; drop(): Promise<void> };
  let dir: string;
  let file: string;
  const mode = (name: string) => fs.statSync(name).mode & 0o777;
  const partialsOf = (target: string) => fs.readdirSync(dir).filter((n) => n.startsWith(`.${target}.`));
  beforeAll(async () => {
    database = await freshDatabaseUrl(engine);
    expect(cli(database.url, 'user', 'create', '--login', 'secret', '--role', 'editor').status).toBe(0);
  });
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backup-files-'));
    file = path.join(dir, 'nightly.bak');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  afterAll(() => database.drop());

  it('writes the backup readable by its owner only and removes what a killed run left for it', () => {
    const dead = deadPid();
    const stale = [`.nightly.bak.${dead}.partial`, `.nightly.bak.${dead}.partial-journal`];
    // not this service's partials of this target: another target's, a running backup's, a file of the operator's
    const others = [`.weekly.bak.${dead}.partial`, `.nightly.bak.${process.pid}.partial`, '.nightly.bak.partial'];
    for (const name of [...stale, ...others]) fs.writeFileSync(path.join(dir, name), 'left behind');

    const run = cli(database.url, 'backup', '--to', file);
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(mode(file).toString(8)).toBe('600');
    expect(fs.readdirSync(dir).sort()).toEqual(['nightly.bak', ...others].sort());
  });

  it('leaves no partial file behind once a backup killed mid-copy is followed by another', async () => {
    const release = await holdDatabase(engine, database.url);
    const killed = cliChild(database.url, 'backup', '--to', file);
    try {
      const deadline = Date.now() + 60_000;
      while (!partialsOf('nightly.bak').length && killed.exitCode === null && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      killed.kill('SIGKILL');
      await exited(killed);
    } finally {
      await release();
    }
    const left = partialsOf('nightly.bak');
    expect(left).toEqual([`.nightly.bak.${killed.pid}.partial`]); // killed while it was copying
    expect(mode(path.join(dir, left[0])).toString(8)).toBe('600'); // private while it was being written too

    const run = cli(database.url, 'backup', '--to', file);
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(partialsOf('nightly.bak')).toEqual([]);
    expect(fs.readdirSync(dir)).toEqual(['nightly.bak']);
    expect(mode(file).toString(8)).toBe('600');
  });
});
