/** `app-password create | list | revoke`: a user's application passwords (WordPress semantics). */
import { type Command, Option } from 'commander';
import * as appPasswords from '../../resources/app-passwords/service';
import { usage } from '../errors';
import { examples, OPERATOR, print, userByLogin, withDatabase } from '../context';

export function register(program: Command): void {
  const group = program
    .command('app-password')
    .description("create, list and revoke a user's application passwords (HTTP Basic as login:password)");

  group
    .command('create')
    .description('create one; prints {"uuid","login","name","scope","password"}: the secret, shown once')
    .requiredOption('--login <login>', 'whose password it is')
    .requiredOption('--name <name>', 'what it is for (shown in lists)')
    .addOption(new Option('--scope <scope>', 'read: the password may only read').choices(['read']))
    .addHelpText(
      'after',
      examples(
        'npm run --silent cli -- app-password create --login ed --name laptop',
        'npm run --silent cli -- app-password create --login ed --name "calendar app" --scope read',
      ),
    )
    .action((options: { login: string; name: string; scope?: 'read' }) =>
      withDatabase('write', async (db) => {
        const name = options.name.trim();
        if (!name) throw usage('--name must not be empty');
        const user = await userByLogin(db, options.login);
        const { row, password } = await appPasswords.create(db, OPERATOR, user.id, name, options.scope ?? null);
        print({ uuid: row.uuid, login: user.login, name: row.name, scope: row.scope, password });
      }),
    );

  group
    .command('list')
    .description('print one JSON line per application password of a user (never the secret)')
    .requiredOption('--login <login>', 'whose passwords')
    .addHelpText('after', examples('npm run --silent cli -- app-password list --login ed'))
    .action((options: { login: string }) =>
      withDatabase('write', async (db) => {
        const user = await userByLogin(db, options.login);
        for (const row of await appPasswords.listFor(db, user.id)) {
          const { uuid, name, scope, created_utc, last_used_utc, last_ip } = row;
          print({ uuid, login: user.login, name, scope, created_utc, last_used_utc, last_ip });
        }
      }),
    );

  group
    .command('revoke')
    .description('revoke one application password (--uuid) or all of a user (--all); prints {"revoked": N}')
    .requiredOption('--login <login>', 'whose passwords')
    .addOption(new Option('--uuid <uuid>', 'the one to revoke (see app-password list)').conflicts('all'))
    .option('--all', 'revoke every application password of the user')
    .addHelpText(
      'after',
      examples(
        'npm run --silent cli -- app-password revoke --login ed --uuid 6f1c…',
        'npm run --silent cli -- app-password revoke --login ed --all',
      ),
    )
    .action((options: { login: string; uuid?: string; all?: boolean }) =>
      withDatabase('write', async (db) => {
        if (!options.all && !options.uuid) throw usage('--uuid UUID or --all is required');
        const user = await userByLogin(db, options.login);
        const rows = await appPasswords.revoke(db, OPERATOR, user.id, options.all ? undefined : options.uuid);
        if (!options.all && !rows.length)
          throw usage(`no application password with uuid "${options.uuid}" (see them with: cli app-password list)`);
        print({ revoked: rows.length });
      }),
    );
}
