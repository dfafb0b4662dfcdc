/** `mcp`: the MCP tools on stdin/stdout for desktop assistants (src/mcp/stdio.ts, docs/decisions.md D104). */
import type { Command } from 'commander';
import { createApp } from '../../app';
import { createLogger } from '../../logger';
import { serveStdio } from '../../mcp/stdio';
import { usage } from '../errors';
import { examples } from '../context';

interface McpOptions {
  login?: string;
  url?: string;
  user?: string;
  password?: string;
}

export function register(program: Command): void {
  program
    .command('mcp')
    .description('serve the MCP tools on stdin/stdout: on this database as a user, or bridged to a running service')
    .option('--login <login>', 'run the tools on the local database (DATABASE_URL) as this user')
    .option('--url <url>', "a running service's base URL, to bridge to its /mcp endpoint (with --user)")
    .option('--user <login>', 'the login of the application password used with --url')
    .option('--password <password>', 'the application password (better: the CALENDAR_APP_PASSWORD variable)')
    .addHelpText(
      'after',
      examples(
        'npm run --silent cli -- mcp --login ed',
        'CALENDAR_APP_PASSWORD=... npm run --silent cli -- mcp --url https://calendar.example.org --user ed',
      ),
    )
    .action((options: McpOptions) => serveStdio(stdioOptions(options)));
}

function stdioOptions({ login, url, user, password }: McpOptions) {
  if (url) {
    const secret = password ?? process.env.CALENDAR_APP_PASSWORD;
    if (!user) throw usage('--url needs --user (the login of an application password)');
    if (!secret) throw usage('--url needs the application password: set CALENDAR_APP_PASSWORD or give --password');
    return { url, login: user, password: secret };
  }
  if (!login) throw usage('give --login (the local database) or --url with --user (a running service)');
  return {
    login,
    createApp: (context: Parameters<typeof createApp>[0]) => createApp(context, { logger: createLogger('silent') }),
  };
}
