/** `mcp`: the MCP tools on stdin/stdout for desktop assistants (src/mcp/stdio.ts, docs/decisions.md D104). */
import fs from 'node:fs';
import type { Command } from 'commander';
import ipaddr from 'ipaddr.js';
import { createApp } from '../../app';
import { createLogger } from '../../logger';
import { maskCredentials, serveStdio } from '../../mcp/stdio';
import { usage } from '../errors';
import { examples } from '../context';

interface McpOptions {
  login?: string;
  url?: string;
  user?: string;
  password?: string;
  passwordFile?: string;
  allowInsecureHttp?: boolean;
}

const warn = (line: string) => process.stderr.write(`warning: ${line}\n`);

export function register(program: Command): void {
  program
    .command('mcp')
    .description('serve the MCP tools on stdin/stdout: on this database as a user, or bridged to a running service')
    .option('--login <login>', 'run the tools on the local database (DATABASE_URL) as this user')
    .option('--url <url>', "a running service's base URL, to bridge to its /mcp endpoint (with --user)")
    .option('--user <login>', 'the login of the application password used with --url')
    .option('--password-file <path>', 'a file holding the application password (its first line)')
    .option('--password <password>', 'the application password: other users see it (ps); prefer CALENDAR_APP_PASSWORD')
    .option('--allow-insecure-http', 'let --url be plain http:// to another machine (the password crosses in clear)')
    .addHelpText(
      'after',
      examples(
        'npm run --silent cli -- mcp --login ed',
        'CALENDAR_APP_PASSWORD=... npm run --silent cli -- mcp --url https://calendar.example.org --user ed',
        'npm run --silent cli -- mcp --url https://calendar.example.org --user ed --password-file ~/.calendar-key',
      ),
    )
    .action((options: McpOptions) => serveStdio(stdioOptions(options)));
}

function stdioOptions(options: McpOptions) {
  const { login, url, user } = options;
  if (url) {
    if (!user) throw usage('--url needs --user (the login of an application password)');
    return { url: bridgeUrl(url, options.allowInsecureHttp === true), login: user, password: bridgePassword(options) };
  }
  if (!login) throw usage('give --login (the local database) or --url with --user (a running service)');
  return {
    login,
    createApp: (context: Parameters<typeof createApp>[0]) => createApp(context, { logger: createLogger('silent') }),
  };
}

/** The application password: from a file, the environment, or (visible to every user of the machine) the options. */
function bridgePassword({ password, passwordFile }: McpOptions): string {
  if (passwordFile !== undefined) {
    const secret = fs.readFileSync(passwordFile, 'utf8').split(/\r?\n/)[0];
    if (!secret) throw usage(`--password-file ${passwordFile} is empty: write the application password in it`);
    return secret;
  }
  if (password !== undefined) {
    warn('--password is visible to other users of this machine (ps): set CALENDAR_APP_PASSWORD or --password-file');
    return password;
  }
  const secret = process.env.CALENDAR_APP_PASSWORD;
  if (!secret) throw usage('--url needs the application password: set CALENDAR_APP_PASSWORD or give --password-file');
  return secret;
}

/**
 * The service's URL, never with credentials in it (they would show in `ps` and in messages: refused, and masked
 * when told), and never plain http:// to another machine, where Basic crosses the network in clear, unless asked.
 */
function bridgeUrl(text: string, allowInsecureHttp: boolean): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usage(`--url is not a URL: ${maskCredentials(text)}`);
  }
  if (url.username || url.password) {
    throw usage(
      `--url must not carry credentials (${maskCredentials(text)}): give --user, and the password in ` +
        'CALENDAR_APP_PASSWORD or --password-file',
    );
  }
  if (!['http:', 'https:'].includes(url.protocol)) throw usage(`--url must be http(s): ${url.origin}`);
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    const clear = `${url.origin} is plain http: the application password would cross the network in clear`;
    if (!allowInsecureHttp) throw usage(`${clear}; use https, or give --allow-insecure-http`);
    warn(clear);
  }
  return text;
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback';
}
