/**
 * Operator commands (docs/decisions.md D5):
 *   user create --login L --role R     prints {"id","login","role","password"} with a generated password
 *   user list                          prints one JSON line per user (no password hashes)
 *   user reset-password --login L      prints {"id","login","role","password"} with a new generated password
 *   app-password create --login L --name N [--scope read]
 *                                      prints {"uuid","login","name","scope","password"}: the secret, shown once
 *   app-password list --login L        prints one JSON line per application password (never the secret)
 *   app-password revoke --login L (--uuid U | --all)
 *                                      prints {"revoked": N}
 *   import ics <file-or-URL> --author L [--status S] [--category NAME] [--dry-run] [--sync] [--allow-private]
 *                                      imports VEVENTs as events written by L; prints a JSON summary
 *   import tec <REST root> --author L [--user U --password P] [--allow-private]
 *                                      copies a plugin site (categories, tags, venues, organizers, events)
 *   backup --to FILE                   a consistent copy while the service serves (SQLite: the database file,
 *                                      integrity-checked; PostgreSQL: the portable dump)
 *   export --to FILE                   the portable dump (versioned JSON Lines, src/ops/dump/) of every table
 *   import-dump --from FILE            loads a dump into an empty database of either engine, then verifies it
 *   mcp --login L | mcp --url URL --user U --password P
 *                                      the MCP tools on stdin/stdout (src/mcp/stdio.ts): on the local database as
 *                                      user L, or against a running service with an application password
 * A progress bar goes to stderr on a terminal. URLs on private, loopback or link-local addresses are refused
 * unless --allow-private is given.
 * Every write is recorded in the audit trail (via `cli`, by the operating-system user; imports via `import`).
 * Uses DATABASE_URL like the server, and migrates first so it works on a fresh database; `backup` and `export` only
 * read (on SQLite through a read-only connection: a write beside the server would fail its next write with BUSY).
 * Results are JSON lines on stdout.
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
import os from 'node:os';
import type { Db } from '../src/db/types';
import { changes, type Actor } from '../src/core/audit';
import { write } from '../src/core/write';
import * as appPasswords from '../src/resources/app-passwords/service';
import { importIcs } from '../src/imports/ics';
import { importTec } from '../src/imports/tec';
import { readSource } from '../src/imports/source';
import { backup, exportToFile } from '../src/ops/backup';
import { DumpError, importDump, type TableSummary } from '../src/ops/dump';
import { terminalProgress } from '../src/ops/progress';
import { serveStdio } from '../src/mcp/stdio';
import { createApp } from '../src/app';
import { createLogger } from '../src/logger';

class UsageError extends Error {}

async function run(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      login: { type: 'string' },
      role: { type: 'string' },
      name: { type: 'string' },
      scope: { type: 'string' },
      uuid: { type: 'string' },
      all: { type: 'boolean' },
      author: { type: 'string' },
      status: { type: 'string' },
      category: { type: 'string' },
      'dry-run': { type: 'boolean' },
      sync: { type: 'boolean' },
      'allow-private': { type: 'boolean' },
      user: { type: 'string' },
      password: { type: 'string' },
      to: { type: 'string' },
      from: { type: 'string' },
      url: { type: 'string' },
    },
  });
  if (positionals[0] === 'mcp') {
    const { url, user, password, login } = values;
    return serveStdio(
      url
        ? { url, login: required(user, '--user'), password: required(password, '--password') }
        : {
            login: required(login, '--login'),
            createApp: (context) => createApp(context, { logger: createLogger('silent') }),
          },
    );
  }
  const command = positionals.slice(0, 2).join(' ');
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
      const user = await write(db, async (w) => {
        const created = await createUser(w.trx, login, role, password);
        w.audit(OPERATOR, 'create', 'user', created.id, changes(undefined, { login, role, password }));
        return created;
      }).catch((err: unknown) => {
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
      await write(db, async (w) => {
        await setPassword(w.trx, user.id, password);
        w.audit(OPERATOR, 'update', 'user', user.id, { password: { old: '[redacted]', new: '[redacted]' } });
      });
      print({ id: user.id, login: user.login, role: user.role, password });
    } else if (positionals[0] === 'app-password') {
      await appPassword(db, positionals[1], values);
    } else if (command === 'import ics' || command === 'import tec') {
      const source = positionals[2];
      if (!source)
        throw new UsageError(
          `usage: cli ${command} <${command === 'import ics' ? 'file-or-URL' : 'REST root'}> --author L`,
        );
      const author = await findUserByLogin(db, required(values.author, '--author'));
      if (!author) throw new UsageError(`no user with login "${values.author}"`);
      const caller = { id: author.id, login: author.login, role: author.role };
      const config = loadConfig();
      const fetchOptions = { allowPrivate: Boolean(values['allow-private']) };
      if (command === 'import ics') {
        const text = await readSource(source, fetchOptions);
        print(
          await importIcs(
            db,
            config,
            text,
            {
              source,
              author: caller,
              status: values.status,
              category: values.category,
              dryRun: Boolean(values['dry-run']),
              sync: Boolean(values.sync),
              language: config.defaultLanguage,
            },
            terminalProgress(),
          ),
        );
      } else {
        const credentials = values.user
          ? { user: values.user, password: required(values.password, '--password') }
          : undefined;
        print(
          await importTec(
            db,
            config,
            source,
            { author: caller, credentials, fetch: fetchOptions, language: config.defaultLanguage },
            terminalProgress(),
          ),
        );
      }
    } else if (command === 'backup') {
      const result = await backup(db, databaseUrl, required(values.to, '--to'), { progress: terminalProgress() });
      print({ ...result, ...('tables' in result ? { tables: rowCounts(result.tables) } : {}), seconds: seconds() });
    } else if (command === 'export') {
      const file = required(values.to, '--to');
      const tables = await exportToFile(db, file, { progress: terminalProgress() });
      print({ exported: file, tables: rowCounts(tables), seconds: seconds() });
    } else if (command === 'import-dump') {
      const file = required(values.from, '--from');
      if (!fs.existsSync(file)) throw new UsageError(`no file ${file}`);
      const tables = await importDump(db, fs.createReadStream(file), { progress: terminalProgress() }).catch(
        (err: unknown) => {
          throw err instanceof DumpError ? new UsageError(err.message) : err;
        },
      );
      print({ imported: file, verified: true, tables: rowCounts(tables), seconds: seconds() });
    } else {
      throw new UsageError(
        'usage: cli user create --login L --role R | user list | user reset-password --login L' +
          ' | app-password create --login L --name N [--scope read] | app-password list --login L' +
          ' | app-password revoke --login L (--uuid U | --all)' +
          ' | import ics <file-or-URL> --author L | import tec <REST root> --author L' +
          ' | backup --to FILE | export --to FILE | import-dump --from FILE',
      );
    }
  } finally {
    await db.destroy();
  }
}

/** The operator at the CLI, as the audit trail records them. */
const OPERATOR: Actor = { userId: null, login: os.userInfo().username, appPassword: null, address: null, via: 'cli' };

async function appPassword(
  db: Db,
  command: string | undefined,
  values: Record<string, string | boolean | undefined>,
): Promise<void> {
  const login = required(values.login as string | undefined, '--login');
  const user = await findUserByLogin(db, login);
  if (!user) throw new UsageError(`no user with login "${login}"`);
  if (command === 'create') {
    const name = required((values.name as string | undefined)?.trim(), '--name');
    if (values.scope !== undefined && values.scope !== 'read') throw new UsageError('--scope must be read');
    const { row, password } = await appPasswords.create(
      db,
      OPERATOR,
      user.id,
      name,
      values.scope === 'read' ? 'read' : null,
    );
    print({ uuid: row.uuid, login, name: row.name, scope: row.scope, password });
  } else if (command === 'list') {
    for (const row of await appPasswords.listFor(db, user.id)) {
      print({
        uuid: row.uuid,
        login,
        name: row.name,
        scope: row.scope,
        created_utc: row.created_utc,
        last_used_utc: row.last_used_utc,
        last_ip: row.last_ip,
      });
    }
  } else if (command === 'revoke') {
    if (!values.all && !values.uuid) throw new UsageError('--uuid U or --all is required');
    const rows = await appPasswords.revoke(db, OPERATOR, user.id, values.all ? undefined : (values.uuid as string));
    if (!values.all && !rows.length) throw new UsageError(`no application password with uuid "${String(values.uuid)}"`);
    print({ revoked: rows.length });
  } else {
    throw new UsageError('usage: cli app-password create|list|revoke --login L …');
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
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

run(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = err instanceof UsageError ? 2 : 1;
});
