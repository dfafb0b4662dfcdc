/**
 * Importing our own feed as an operator meets it (docs/decisions.md D88), on every engine: a server without
 * PUBLIC_URL serves 17 events; its iCalendar feed, saved to a file and imported with `cli import ics` run with the
 * server's settings, creates none of them again (it used to create 17 copies); an edited SUMMARY updates its event;
 * a UID of another site creates one.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ENGINES, freshDatabaseUrl } from '../support/engines';
import { basic } from '../support/kit';
import { freePort, killAll, request, ROOT, startServer, TSX } from './support';

const ADMIN = { ADMIN_LOGIN: 'owner', ADMIN_PASSWORD: 'the owner of this calendar' };
const AUTH = basic(ADMIN.ADMIN_LOGIN, ADMIN.ADMIN_PASSWORD);
const NAMESPACE = '/calendar/events/v1';
const EVENTS = 17;

describe.each(ENGINES)('cli import ics of the server’s own feed on %s', (engine) => {
  let database: { url: string; drop(): Promise<void> };
  let port: number;
  let dir: string;
  beforeAll(async () => {
    database = await freshDatabaseUrl(engine);
    port = await freePort();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'own-feed-'));
  });
  afterAll(async () => {
    await killAll();
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /**
   * The CLI with the server's settings (its DATABASE_URL, HOST and PORT), as an operator runs it beside it; run
   * asynchronously, so that this process notices the server closing idle keep-alive connections meanwhile.
   */
  const cli = async (...args: string[]) => {
    const child = spawn(TSX, ['scripts/cli.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: database.url, HOST: '127.0.0.1', PORT: String(port) },
    });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ status, stderr }).toEqual({ status: 0, stderr: '' });
    return JSON.parse(stdout.trim()) as { created: number; updated: number; unchanged: number; skipped: [] };
  };

  it('creates nothing from its own feed, updates an edited event, creates another site’s', async () => {
    await startServer(database.url, port, ADMIN);
    const base = `http://127.0.0.1:${port}${NAMESPACE}`;
    for (let i = 0; i < EVENTS; i++) {
      const day = String(1 + i).padStart(2, '0');
      const created = await request(base, 'POST', '/events', {
        auth: AUTH,
        body: { title: `Own event ${i}`, start_date: `2031-03-${day} 10:00:00`, end_date: `2031-03-${day} 12:00:00` },
      });
      expect(created.status).toBe(201);
    }
    const res = await fetch(`${base}/events/ical?start_date=2031-03-01&end_date=2031-03-31`, {
      headers: { Authorization: AUTH },
    });
    expect(res.status).toBe(200);
    const feed = await res.text();
    expect(feed.match(/^BEGIN:VEVENT/gm)).toHaveLength(EVENTS);
    expect(feed).toContain(`UID:127.0.0.1:${port}?id=`);
    const file = path.join(dir, 'feed.ics');
    fs.writeFileSync(file, feed);

    expect(await cli('import', 'ics', file, '--author', ADMIN.ADMIN_LOGIN)).toMatchObject({
      created: 0,
      updated: 0,
      unchanged: EVENTS,
      skipped: [],
    });
    const list = async () => {
      const answer = await request(base, 'GET', '/events?start_date=2031-03-01&end_date=2031-03-31&per_page=50', {
        auth: AUTH,
      });
      expect(answer).toMatchObject({ status: 200 });
      return answer.body.events as Array<{ id: number; title: string }>;
    };
    expect(await list()).toHaveLength(EVENTS);

    fs.writeFileSync(file, feed.replace('SUMMARY;LANGUAGE=en:Own event 3\r\n', 'SUMMARY:Own event 3 (edited)\r\n'));
    expect(await cli('import', 'ics', file, '--author', ADMIN.ADMIN_LOGIN)).toMatchObject({
      created: 0,
      updated: 1,
      unchanged: EVENTS - 1,
    });
    const titles = (await list()).map((e) => e.title);
    expect(titles).toHaveLength(EVENTS);
    expect(titles).toContain('Own event 3 (edited)');

    const other = feed.replace(/^UID:127\.0\.0\.1:\d+\?id=(\d+)\r\n/m, 'UID:calendar.example.net?id=$1\r\n');
    fs.writeFileSync(file, other);
    expect(await cli('import', 'ics', file, '--author', ADMIN.ADMIN_LOGIN)).toMatchObject({ created: 1 });
    expect(await list()).toHaveLength(EVENTS + 1);
  });
});
