/** `import ics | tec`: events from an iCalendar file or URL, or a whole site of The Events Calendar. */
import type { Command } from 'commander';
import { loadConfig } from '../../config';
import { importIcs } from '../../imports/ics';
import { readSource } from '../../imports/source';
import { importTec } from '../../imports/tec';
import { terminalProgress } from '../../ops/progress';
import { usage } from '../errors';
import { authorOrOnlyAdministrator, examples, print, withDatabase } from '../context';

const AUTHOR = [
  '--author <login>',
  'who the imported records are written by (default: the only administrator)',
] as const;
const ALLOW_PRIVATE = [
  '--allow-private',
  'allow URLs on private, loopback or link-local addresses (refused by default)',
] as const;

export function register(program: Command): void {
  const group = program.command('import').description('import events from iCalendar or from a site of the plugin');

  group
    .command('ics')
    .description('import the VEVENTs of an iCalendar file or URL; prints a JSON summary')
    .argument('<file-or-URL>', 'a .ics file, or an http(s):// or webcal:// URL')
    .option(...AUTHOR)
    .option('--status <status>', 'the status of the events it creates (default: publish)')
    .option('--category <name>', 'put every imported event in this category')
    .option('--dry-run', 'report what would change, write nothing')
    .option('--sync', 'also delete the events a previous import of this source made that it no longer has')
    .option(...ALLOW_PRIVATE)
    .option(
      '--site <URL>',
      'another URL this site is known by: UIDs naming it update the events they name (repeatable)',
      (url: string, sites: string[]) => [...sites, url],
      [] as string[],
    )
    .addHelpText(
      'after',
      examples(
        'npm run --silent cli -- import ics holidays.ics',
        'npm run --silent cli -- import ics https://example.org/calendar.ics --author ed --category Imported --sync',
      ),
    )
    .action(
      (
        source: string,
        options: {
          author?: string;
          status?: string;
          category?: string;
          dryRun?: boolean;
          sync?: boolean;
          allowPrivate?: boolean;
          site: string[];
        },
      ) =>
        withDatabase('write', async (db) => {
          const author = await authorOrOnlyAdministrator(db, options.author);
          const config = loadConfig();
          const text = await readSource(source, { allowPrivate: Boolean(options.allowPrivate) });
          const summary = await importIcs(
            db,
            config,
            text,
            {
              source,
              author: { id: author.id, login: author.login, role: author.role },
              status: options.status,
              category: options.category,
              dryRun: Boolean(options.dryRun),
              sync: Boolean(options.sync),
              language: config.defaultLanguage,
              sites: options.site,
            },
            terminalProgress(),
          );
          print(summary);
        }),
    );

  group
    .command('tec')
    .description('copy a site of The Events Calendar: categories, tags, venues, organizers, events')
    .argument('<REST-root>', "the site's REST root, e.g. https://example.org/wp-json/tribe/events/v1")
    .option(...AUTHOR)
    .option('--user <login>', 'a login on that site, to copy what only it may read (with --password)')
    .option('--password <password>', 'its application password')
    .option(...ALLOW_PRIVATE)
    .addHelpText(
      'after',
      examples(
        'npm run --silent cli -- import tec https://example.org/wp-json/tribe/events/v1',
        'npm run --silent cli -- import tec https://example.org/wp-json/tribe/events/v1 --user me --password "ab cd"',
      ),
    )
    .action((source: string, options: { author?: string; user?: string; password?: string; allowPrivate?: boolean }) =>
      withDatabase('write', async (db) => {
        if (options.user !== undefined && options.password === undefined)
          throw usage('--password is required with --user');
        const author = await authorOrOnlyAdministrator(db, options.author);
        const config = loadConfig();
        const credentials =
          options.user !== undefined ? { user: options.user, password: options.password as string } : undefined;
        const summary = await importTec(
          db,
          config,
          source,
          {
            author: { id: author.id, login: author.login, role: author.role },
            credentials,
            fetch: { allowPrivate: Boolean(options.allowPrivate) },
            language: config.defaultLanguage,
          },
          terminalProgress(),
        );
        print(summary);
      }),
    );
}
