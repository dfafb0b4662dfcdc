/**
 * Operator commands (DECISIONS.md):
 *   user create --login L --role R     prints {"id","login","role","password"} with a generated password
 *   user list                          prints one JSON line per user (no password hashes)
 *   user reset-password --login L      prints {"id","login","role","password"} with a new generated password
 * Uses DATABASE_URL like the server, and migrates first so it works on a fresh database.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config';
import { createDb } from '../src/db/knex';
import { migrate } from '../src/db/migrate';
import { isUniqueViolation } from '../src/db/dialect';
import { generatePassword } from '../src/users/passwords';
import { createUser, findUserByLogin, listUsers, setPassword } from '../src/users/repository';
import { isRole, ROLES } from '../src/users/roles';

class UsageError extends Error {}

async function run(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { login: { type: 'string' }, role: { type: 'string' } },
  });
  const command = positionals.join(' ');
  const db = createDb(loadConfig().databaseUrl);
  try {
    await migrate(db);
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
    } else {
      throw new UsageError('usage: cli user create --login L --role R | user list | user reset-password --login L');
    }
  } finally {
    await db.destroy();
  }
}

function required(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`${flag} is required`);
  return value;
}

function print(value: object): void {
  process.stdout.write(JSON.stringify(value) + '\n');
}

run(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = err instanceof UsageError ? 2 : 1;
});
