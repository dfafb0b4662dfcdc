/** `user create | list | reset-password`: accounts, with generated passwords printed once (D5). */
import { type Command, Option } from 'commander';
import { changes } from '../../core/audit';
import { write } from '../../core/write';
import { isUniqueViolation } from '../../db/dialect';
import { generatePassword } from '../../users/passwords';
import { createUser, listUsers, setPassword } from '../../users/repository';
import { ROLES, type Role } from '../../users/roles';
import { usage } from '../errors';
import { examples, OPERATOR, print, userByLogin, withDatabase } from '../context';

export function register(program: Command): void {
  const user = program.command('user').description('create, list and reset users');

  user
    .command('create')
    .description('create a user with a generated password; prints {"id","login","role","password"} (shown once)')
    .requiredOption('--login <login>', 'the login')
    .addOption(new Option('--role <role>', 'the role').choices(ROLES).makeOptionMandatory())
    .addHelpText('after', examples('npm run --silent cli -- user create --login ed --role editor'))
    .action((options: { login: string; role: Role }) =>
      withDatabase('write', async (db) => {
        const { login, role } = options;
        const password = generatePassword();
        const created = await write(db, async (w) => {
          const row = await createUser(w.trx, login, role, password);
          w.audit(OPERATOR, 'create', 'user', row.id, changes(undefined, { login, role, password }));
          return row;
        }).catch((err: unknown) => {
          throw isUniqueViolation(err) ? usage(`a user with login "${login}" exists (choose another login)`) : err;
        });
        print({ id: created.id, login: created.login, role: created.role, password });
      }),
    );

  user
    .command('list')
    .description('print one JSON line per user (never a password)')
    .addHelpText('after', examples('npm run --silent cli -- user list'))
    .action(() =>
      withDatabase('write', async (db) => {
        for (const row of await listUsers(db)) print(row);
      }),
    );

  user
    .command('reset-password')
    .description('give a user a new generated password; prints {"id","login","role","password"}')
    .requiredOption('--login <login>', 'the login')
    .addHelpText('after', examples('npm run --silent cli -- user reset-password --login ed'))
    .action((options: { login: string }) =>
      withDatabase('write', async (db) => {
        const found = await userByLogin(db, options.login);
        const password = generatePassword();
        await write(db, async (w) => {
          await setPassword(w.trx, found.id, password);
          w.audit(OPERATOR, 'update', 'user', found.id, { password: { old: '[redacted]', new: '[redacted]' } });
        });
        print({ id: found.id, login: found.login, role: found.role, password });
      }),
    );
}
