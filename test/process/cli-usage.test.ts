/**
 * The CLI as operators meet it, on every engine (D97): `import` writes as the only administrator when `--author` is
 * left out, and says how to choose when there are none or several; a missing file or folder is one line in words
 * with exit 2 in every command (never `ENOENT` or a temporary file name); a taken login is exit 2.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ENGINES, freshDatabaseUrl } from '../support/engines';
import { createDb } from '../../src/db/knex';
import { cli } from './support';

const GOOGLE = path.join(__dirname, '..', 'fixtures', 'ical', 'google.ics');

/** The one line a failing run printed, checked to hold no raw system text. */
function failure(run: ReturnType<typeof cli>, status: number): string {
  expect({ status: run.status, lines: run.lines }).toEqual({ status, lines: [] });
  const lines = run.stderr.split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  expect(lines[0]).not.toMatch(/ENOENT|EACCES|\.partial|at .*\(|Error:/);
  return lines[0];
}

describe.each(ENGINES)('the CLI on %s', (engine) => {
  let database: { url: string; drop(): Promise<void> };
  let dir: string;
  beforeAll(async () => {
    database = await freshDatabaseUrl(engine);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'calendar-cli-'));
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await database.drop();
  });

  it('imports as the only administrator when --author is left out, and asks for it otherwise', async () => {
    expect(failure(cli(database.url, 'import', 'ics', GOOGLE), 2)).toBe(
      'error: --author LOGIN is required: there is no administrator to default to (create one with: cli user create)',
    );
    expect(cli(database.url, 'user', 'create', '--login', 'ada', '--role', 'administrator').status).toBe(0);
    expect(cli(database.url, 'user', 'create', '--login', 'ed', '--role', 'editor').status).toBe(0);
    const imported = cli(database.url, 'import', 'ics', GOOGLE);
    expect(imported.status).toBe(0);
    expect(imported.lines).toEqual([expect.objectContaining({ created: expect.any(Number) })]);
    expect(imported.lines[0].created).toBeGreaterThan(0);
    const db = createDb(database.url);
    try {
      const authors = await db('posts').join('users', 'users.id', 'posts.author_id').distinct('users.login');
      expect(authors).toEqual([{ login: 'ada' }]);
    } finally {
      await db.destroy();
    }

    expect(cli(database.url, 'user', 'create', '--login', 'bea', '--role', 'administrator').status).toBe(0);
    expect(failure(cli(database.url, 'import', 'ics', GOOGLE), 2)).toBe(
      'error: --author LOGIN is required: there are 2 administrators (ada, bea), name one',
    );
    expect(cli(database.url, 'import', 'ics', GOOGLE, '--author', 'ed', '--dry-run').status).toBe(0);
    expect(failure(cli(database.url, 'import', 'ics', GOOGLE, '--author', 'nobody'), 2)).toBe(
      'error: no user with login "nobody" (see them with: cli user list)',
    );
  });

  it('tells a missing file or folder in words, with exit 2 in every command', () => {
    const missing = path.join(dir, 'missing.ics');
    expect(failure(cli(database.url, 'import', 'ics', missing, '--author', 'ed'), 2)).toBe(
      `error: no such file: ${missing} (check the path)`,
    );
    const dump = path.join(dir, 'missing.jsonl');
    expect(failure(cli(database.url, 'import-dump', '--from', dump), 2)).toBe(
      `error: no such file: ${dump} (check the path)`,
    );
    const folder = path.join(dir, 'no', 'such');
    expect(failure(cli(database.url, 'export', '--to', path.join(folder, 'x.jsonl')), 2)).toBe(
      `error: no folder ${folder} (create it, or choose another path)`,
    );
    expect(failure(cli(database.url, 'export', '--to', dir), 2)).toBe(
      `error: ${dir} is not usable here: name a file, not a folder`,
    );
    expect(fs.readdirSync(dir)).toEqual([]); // no partial file left behind
  });

  it('refuses a taken login and an unknown application password with exit 2', () => {
    expect(failure(cli(database.url, 'user', 'create', '--login', 'ed', '--role', 'author'), 2)).toBe(
      'error: a user with login "ed" exists (choose another login)',
    );
    expect(failure(cli(database.url, 'app-password', 'revoke', '--login', 'ed', '--uuid', 'nope'), 2)).toMatch(
      /^error: no application password with uuid "nope"/,
    );
  });
});
