/**
 * `cli backup` while the server (a child process) takes concurrent writes, on every engine: the backup is restored
 * (SQLite: the copied file; PostgreSQL: `import-dump` of the dump into an empty database), a server started on it
 * has every write acknowledged before the backup began and none sent after it ended, and the copy is intact.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import knex from 'knex';
import { ENGINES, freshDatabaseUrl } from '../support/engines';
import {
  basicAuth,
  cli,
  freePort,
  INTEGRITY_QUERIES,
  killAll,
  outputOf,
  request,
  ROOT,
  startServer,
  TSX,
} from './support';

const ADMIN = { ADMIN_LOGIN: 'keeper', ADMIN_PASSWORD: 'a backed-up admin password' };
const AUTH = basicAuth(ADMIN.ADMIN_LOGIN, ADMIN.ADMIN_PASSWORD);
const NAMESPACE = '/calendar/events/v1';
const WRITERS = 4;

interface Write {
  id: number;
  title: string;
  sentAt: number;
  ackedAt: number;
}

/** Runs the CLI without blocking this process (the writers go on meanwhile). */
function cliAsync(url: string, ...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(TSX, ['scripts/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, DATABASE_URL: url } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Waits (bounded) until `condition` holds. */
async function until(condition: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
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
