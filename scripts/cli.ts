/**
 * Operator commands (DECISIONS.md):
 *   user create --login L --role R     prints {"id","login","role","password"} with a generated password
 *   user list                          prints one JSON line per user (no password hashes)
 *   user reset-password --login L      prints {"id","login","role","password"} with a new generated password
 *   backup --to FILE                   a consistent copy while the service serves (SQLite: the database file,
 *                                      integrity-checked; PostgreSQL: the portable dump)
 *   export --to FILE                   the portable dump (versioned JSON Lines, src/ops/dump.ts) of every table
 *   import-dump --from FILE            loads a dump into an empty database of either engine, then verifies it
 * Uses DATABASE_URL like the server, and migrates first so it works on a fresh database; `backup` and `export` only
 * read (on SQLite through a read-only connection: a write beside the server would fail its next write with BUSY). A progress bar shows on a
 * terminal (stderr); the result is one JSON line on stdout.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config';
import { createDb } from '../src/db/knex';
import { migrate } from '../src/db/migrate';
import { isUniqueViolation } from '../src/db/dialect';
import { generatePassword } from '../src/users/passwords';
import { createUser, findUserByLogin, listUsers, setPassword } from '../src/users/repository';
import { isRole, ROLES } from '../src/users/roles';
import { backup, exportToFile } from '../src/ops/backup';
import { DumpError, importDump, type TableSummary } from '../src/ops/dump';
import { terminalProgress } from '../src/ops/progress';

class UsageError extends Error {}

async function run(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { login: { type: 'string' }, role: { type: 'string' }, to: { type: 'string' }, from: { type: 'string' } },
  });
  const command = positionals.join(' ');
  const { databaseUrl } = loadConfig();
  const readOnly = command === 'backup' || command === 'export';
  const db = createDb(databaseUrl, { readonly: readOnly });
  const started = performance.now();
  const seconds = () => Math.round(performance.now() - started) / 1000;
  try {
    if (!readOnly) await migrate(db);
    if (command === 'user create') {
      const login = required(values.login, '--login');
      const role = required(values.role, '--role');
      if (!isRole(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
      const password = generatePassword();
      const user = await createUser(db, login, role, password).catch((err: unknown) => {
        throw isUniqueViolation(err) ? new UsageError(`a user with login "${login}" exists`) : err;
      });
      print({ id: user.id, login: user.login, role: user.role, password });
    } else if (command === 'user list') {
      for (const user of await listUsers(db)) print(user);
    } else if (command === 'user reset-password') {
      const login = required(values.login, '--login');
      const user = await findUserByLogin(db, login);
      if (!user) throw new UsageError(`no user with login "${login}"`);
      const password = generatePassword();
      await setPassword(db, user.id, password);
      print({ id: user.id, login: user.login, role: user.role, password });
    } else if (command === 'backup') {
      const result = await backup(db, databaseUrl, required(values.to, '--to'), { progress: terminalProgress('backup') });
      print({ ...result, ...('tables' in result ? { tables: rowCounts(result.tables) } : {}), seconds: seconds() });
    } else if (command === 'export') {
      const file = required(values.to, '--to');
      const tables = await exportToFile(db, file, { progress: terminalProgress('export') });
      print({ exported: file, tables: rowCounts(tables), seconds: seconds() });
    } else if (command === 'import-dump') {
      const file = required(values.from, '--from');
      if (!fs.existsSync(file)) throw new UsageError(`no file ${file}`);
      const tables = await importDump(db, fs.createReadStream(file), { progress: terminalProgress('import') })
        .catch((err: unknown) => { throw err instanceof DumpError ? new UsageError(err.message) : err; });
      print({ imported: file, verified: true, tables: rowCounts(tables), seconds: seconds() });
    } else {
      throw new UsageError('usage: cli user create --login L --role R | user list | user reset-password --login L'
        + ' | backup --to FILE | export --to FILE | import-dump --from FILE');
    }
  } finally {
    await db.destroy();
  }
}

function required(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`${flag} is required`);
  return value;
}

function rowCounts(tables: Record<string, TableSummary>): Record<string, number> {
  return Object.fromEntries(Object.entries(tables).map(([name, { rows }]) => [name, rows]));
}

function print(value: object): void {
  process.stdout.write(JSON.stringify(value) + '\n');
}

run(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = err instanceof UsageError ? 2 : 1;
});
