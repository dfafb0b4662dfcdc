/**
 * The import commands as operators run them, on every engine: `import ics` from a file and from a URL (a loopback
 * URL needs --allow-private), a JSON summary on stdout, usage errors with status 2, and the same run twice.
 */
import http from 'node:http';
import path from 'node:path';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { ENGINES, freshDatabaseUrl } from '../support/engines';
import { cliAsync, jsonLines } from '../support/kit';
import { cli } from './support';

const GOOGLE = path.join(__dirname, '..', 'fixtures', 'ical', 'google.ics');

describe.each(ENGINES)('import commands on %s', (engine) => {
  let database: { url: string; drop(): Promise<void> };
  let server: http.Server;
  beforeAll(async () => {
    database = await freshDatabaseUrl(engine);
    server = http.createServer((_req, res) => {
      res.setHeader('Content-Type', 'text/calendar');
      res.end(fs.readFileSync(GOOGLE));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await database.drop();
  });

  it('imports a file, then the same file again without creating anything twice', () => {
    expect(cli(database.url, 'user', 'create', '--login', 'importer', '--role', 'editor').status).toBe(0);
    const dry = cli(database.url, 'import', 'ics', GOOGLE, '--author', 'importer', '--dry-run');
    expect(dry.lines).toEqual([expect.objectContaining({ created: 3, updated: 0, unchanged: 0, skipped: [] })]);
    const first = cli(database.url, 'import', 'ics', GOOGLE, '--author', 'importer', '--category', 'Berlin');
    expect(first.status).toBe(0);
    expect(first.lines).toEqual([{ created: 3, updated: 0, unchanged: 0, skipped: [], removed: [], notes: [] }]);
    expect(first.stderr).toBe(''); // no progress bar without a terminal
    const again = cli(database.url, 'import', 'ics', GOOGLE, '--author', 'importer', '--category', 'Berlin');
    expect(again.lines).toEqual([{ created: 0, updated: 0, unchanged: 3, skipped: [], removed: [], notes: [] }]);
  });

  it('fetches a URL only with --allow-private when it is on a private address', async () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/team.ics`;
    const refused = await cliAsync(database.url, 'import', 'ics', url, '--author', 'importer');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/127\.0\.0\.1 is a private address \(allow it with --allow-private\)/);
    const allowed = await cliAsync(database.url, 'import', 'ics', url, '--author', 'importer', '--allow-private');
    // another source: its own UIDs
    expect(jsonLines(allowed.stdout)).toEqual([expect.objectContaining({ created: 3 })]);
  });

  it('answers usage errors with status 2', () => {
    expect(cli(database.url, 'import', 'ics', GOOGLE).status).toBe(2);
    expect(cli(database.url, 'import', 'ics', GOOGLE, '--author', 'nobody').status).toBe(2);
    expect(cli(database.url, 'import', 'ics').status).toBe(2);
  });
});
