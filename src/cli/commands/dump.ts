/** `backup`, `export`, `import-dump`: copies of the database, and moving it between engines (src/ops/). */
import fs from 'node:fs';
import type { Command } from 'commander';
import { backup, exportToFile } from '../../ops/backup';
import { DumpError, importDump, type TableSummary } from '../../ops/dump';
import { terminalProgress } from '../../ops/progress';
import { CliError, EXIT, usage } from '../errors';
import { examples, print, secondsSince, withDatabase } from '../context';

const rowCounts = (tables: Record<string, TableSummary>) =>
  Object.fromEntries(Object.entries(tables).map(([name, { rows }]) => [name, rows]));

export function register(program: Command): void {
  program
    .command('backup')
    .description(
      'a consistent copy while the service serves (SQLite: the database file, integrity-checked; ' +
        'PostgreSQL: the portable dump)',
    )
    .requiredOption('--to <file>', 'where to write it (replaced whole, never left half-written)')
    .addHelpText('after', examples('npm run --silent cli -- backup --to /backups/calendar-$(date +%F).sqlite'))
    .action((options: { to: string }) => {
      const started = performance.now();
      return withDatabase('read', async (db, databaseUrl) => {
        const result = await backup(db, databaseUrl, options.to, { progress: terminalProgress() });
        const tables = 'tables' in result ? { tables: rowCounts(result.tables) } : {};
        print({ ...result, ...tables, seconds: secondsSince(started) });
      });
    });

  program
    .command('export')
    .description('write the portable dump (versioned JSON Lines) of every table')
    .requiredOption('--to <file>', 'where to write it')
    .addHelpText(
      'after',
      examples('DATABASE_URL=sqlite:./data/calendar.sqlite npm run --silent cli -- export --to calendar.jsonl'),
    )
    .action((options: { to: string }) => {
      const started = performance.now();
      return withDatabase('read', async (db) => {
        const tables = await exportToFile(db, options.to, { progress: terminalProgress() });
        print({ exported: options.to, tables: rowCounts(tables), seconds: secondsSince(started) });
      });
    });

  program
    .command('import-dump')
    .description('load a portable dump into an empty database of either engine, then verify it')
    .requiredOption('--from <file>', 'the dump (from export or a PostgreSQL backup)')
    .addHelpText(
      'after',
      examples(
        'DATABASE_URL=postgres://calendar@db/calendar npm run --silent cli -- import-dump --from calendar.jsonl',
      ),
    )
    .action((options: { from: string }) => {
      const started = performance.now();
      if (!fs.existsSync(options.from)) throw usage(`no such file: ${options.from} (check the path)`);
      return withDatabase('write', async (db) => {
        const tables = await importDump(db, fs.createReadStream(options.from), { progress: terminalProgress() }).catch(
          (err: unknown) => {
            throw err instanceof DumpError ? new CliError(`${options.from}: ${err.message}`, EXIT.failed) : err;
          },
        );
        print({ imported: options.from, verified: true, tables: rowCounts(tables), seconds: secondsSince(started) });
      });
    });
}
