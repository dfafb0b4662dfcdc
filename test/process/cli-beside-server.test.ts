/**
 * A writing CLI command beside the running server (a red team's finding), on SQLite: `import ics` of many
 * events while the server takes 60 creates and delivers webhooks. On SQLite two processes then write one file; a
 * transaction that read before it wrote used to fail with `database is locked` (SQLITE_BUSY, which the busy timeout
 * does not cover for a stale snapshot): creates answered 500, the dispatcher logged errors, the import died.
 * IMPORT_EVENTS sets the size of the import (3 000 is the number; the default keeps the suite short).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ENGINES, freshDatabaseUrl } from '../support/engines';
import { basic, cliAsync, receiver, until } from '../support/kit';
import { cli, exited, freePort, killAll, outputOf, request, startServer, type Answer } from './support';

const EVENTS = Number(process.env.IMPORT_EVENTS ?? 600);
const CREATES = 60;
/** Creates in flight at once: enough to contend with the import, few enough to leave it time to run. */
const CREATORS = 3;
const ADMIN = { ADMIN_LOGIN: 'beside', ADMIN_PASSWORD: 'a server beside the cli' };
const AUTH = basic(ADMIN.ADMIN_LOGIN, ADMIN.ADMIN_PASSWORD);
const NAMESPACE = '/calendar/events/v1';
const ENV = { ...ADMIN, WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '20', LOG_LEVEL: 'warn' };

/** An iCalendar file of `count` one-hour events on fixed days (no clock involved). */
function calendar(count: number): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//cli beside server//EN'];
  for (let i = 0; i < count; i++) {
    const day = String(1 + (i % 28)).padStart(2, '0');
    const hour = String(8 + (i % 10)).padStart(2, '0');
    lines.push(
      'BEGIN:VEVENT',
      `UID:beside-${i}@test`,
      'DTSTAMP:20310101T000000Z',
      `DTSTART:203103${day}T${hour}0000Z`,
      `DTEND:203103${day}T${hour}5900Z`,
      `SUMMARY:Imported ${i}`,
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR', '');
  return lines.join('\r\n');
}

/** The server's log lines at level error or above (pino: 50 and 60). */
const errorsIn = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .filter((line) => (JSON.parse(line) as { level: number }).level >= 50);

afterAll(killAll);

// SQLite only: two processes share one database file and its one write lock (PostgreSQL locks rows, in one server)
describe.each(ENGINES.filter((e) => e === 'sqlite'))('a writing CLI command beside the server on %s', (engine) => {
  const title = `imports ${EVENTS} events while the server takes creates (${CREATES} at least) and delivers webhooks`;
  it(title, async () => {
    const database = await freshDatabaseUrl(engine);
    const hook = await receiver();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'beside-'));
    try {
      const file = path.join(dir, 'many.ics');
      fs.writeFileSync(file, calendar(EVENTS));
      const port = await freePort();
      const server = await startServer(database.url, port, ENV);
      const base = `http://127.0.0.1:${port}${NAMESPACE}`;
      const subscribed = await request(base, 'POST', '/webhooks', {
        auth: AUTH,
        body: { url: hook.url, events: ['*'] },
      });
      expect(subscribed.status).toBe(201);
      expect(cli(database.url, 'user', 'create', '--login', 'importer', '--role', 'editor').status).toBe(0);

      const importing = cliAsync(database.url, 'import', 'ics', file, '--author', 'importer');
      let imported: Awaited<typeof importing> | undefined;
      void importing.then((run) => {
        imported = run;
      });
      // the creates start with the import and go on until it has ended (and CREATES were sent): whatever the
      // machine's speed, every write the import makes has creates running beside it
      const creates: Array<{ answer: Answer; duringImport: boolean }> = [];
      let sent = 0;
      const creator = async () => {
        while (imported === undefined || sent < CREATES) {
          const i = sent++;
          const duringImport = imported === undefined;
          const answer = await request(base, 'POST', '/events', {
            auth: AUTH,
            body: { title: `Beside ${i}`, start_date: '2031-04-01 10:00:00', end_date: '2031-04-01 11:00:00' },
            timeoutMs: 30_000,
          });
          creates.push({ answer, duringImport });
        }
      };
      await Promise.all(Array.from({ length: CREATORS }, creator));
      const run = await importing;
      // the dispatcher works beside both: every committed change is delivered (bounded wait; asserted below)
      await until(() => hook.received.length >= EVENTS + sent, 120_000);
      const deliveredMeanwhile = hook.received.length;
      const answers = creates.map((c) => c.answer);
      server.kill('SIGTERM');
      await exited(server); // all it logged, shutdown included

      expect(answers.filter((c) => c.status !== 201).map((c) => [c.status, c.body])).toEqual([]);
      expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
      expect(JSON.parse(run.stdout.trim())).toMatchObject({ created: EVENTS, skipped: [] });
      expect(creates.filter((c) => c.duringImport).length).toBeGreaterThan(0); // they overlapped
      expect(deliveredMeanwhile).toBeGreaterThanOrEqual(EVENTS + sent);
      expect(errorsIn(outputOf(server))).toEqual([]); // no request, dispatcher or job error
    } finally {
      await killAll();
      await hook.close();
      await database.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
