/**
 * The CLI's command line without a database (src/cli/, D97): `--help`, `-h` and `--version` on every command, each
 * leaf command's examples, the exit codes in the main help, one line per usage error pointing at the right help,
 * and system errors told in words (no `ENOENT`, no temporary file names).
 */
import type { Command } from 'commander';
import { buildProgram, runCli } from '../../src/cli';
import { describe as describeError, EXIT } from '../../src/cli/errors';

const VERSION = '9.8.7';

/** Runs the CLI in this process, collecting what it writes. */
async function run(...argv: string[]) {
  let stdout = '';
  const errors: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += chunk.toString();
    return true;
  });
  const writeErr = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    errors.push(chunk.toString());
    return true;
  });
  try {
    const code = await runCli(argv, VERSION, (line) => errors.push(`${line}\n`));
    return { code, stdout, stderr: errors.join('') };
  } finally {
    write.mockRestore();
    writeErr.mockRestore();
  }
}

/** Every command path, groups and leaves: [['user'], ['user', 'create'], …]. */
function paths(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((sub) => [[...prefix, sub.name()], ...paths(sub, [...prefix, sub.name()])]);
}

const ALL = paths(buildProgram(VERSION));
const LEAVES = ALL.filter(
  (path) => !ALL.some((other) => other.length > path.length && path.every((p, i) => other[i] === p)),
);

/** `it.each` rows: the command's name for the title, then its path. */
const named = (list: string[][]) => list.map((path): [string, string[]] => [path.join(' ') || '(no command)', path]);

describe('the CLI command line', () => {
  it('has every command operators used before', () => {
    expect(ALL.map((p) => p.join(' '))).toEqual([
      'user',
      'user create',
      'user list',
      'user reset-password',
      'app-password',
      'app-password create',
      'app-password list',
      'app-password revoke',
      'import',
      'import ics',
      'import tec',
      'backup',
      'export',
      'import-dump',
      'mcp',
    ]);
  });

  it.each(named([[], ...ALL]))('answers --help, -h and --version on "cli %s"', async (_name, path) => {
    for (const flag of ['--help', '-h']) {
      const help = await run(...path, flag);
      expect({ flag, code: help.code, stderr: help.stderr }).toEqual({ flag, code: 0, stderr: '' });
      expect(help.stdout).toMatch(new RegExp(`^Usage: cli ${path.join(' ')}`.replace(/ +/g, ' ')));
    }
    const version = await run(...path, '--version');
    expect(version).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it.each(named(LEAVES))('shows examples of "cli %s" that name the command', async (_name, path) => {
    const { stdout } = await run(...path, '--help');
    expect(stdout).toContain('Examples:');
    expect(stdout).toContain(`npm run --silent cli -- ${path.join(' ')}`);
  });

  it('lists the exit codes and where each command has its help', async () => {
    const { stdout } = await run('--help');
    expect(stdout).toMatch(
      /Exit codes:\n {2}0 {2}done\n {2}1 {2}the work failed.*\n {2}2 {2}the command line needs fixing/,
    );
    for (const [name] of ALL.filter((p) => p.length === 1)) expect(stdout).toContain(`  ${name}`);
    expect(stdout.split('\n').every((line) => line.length <= 120)).toBe(true);
  });

  it('documents --allow-private and the default author of imports', async () => {
    for (const kind of ['ics', 'tec']) {
      const { stdout } = await run('import', kind, '--help');
      expect(stdout).toContain('--allow-private');
      expect(stdout).toContain('default: the only administrator');
    }
  });

  it.each([
    [['nonsense'], "error: unknown command 'nonsense' (see: npm run --silent cli -- --help)"],
    [['usr', 'list'], "error: unknown command 'usr' (Did you mean user?) (see: npm run --silent cli -- --help)"],
    [['user', 'frob'], "error: unknown command 'frob' (see: npm run --silent cli -- user --help)"],
    [
      ['user', 'create', '--login', 'x'],
      "error: required option '--role <role>' not specified (see: npm run --silent cli -- user create --help)",
    ],
    [
      ['user', 'create', '--login', 'x', '--role', 'overlord'],
      "error: option '--role <role>' argument 'overlord' is invalid. Allowed choices are administrator, editor, " +
        'author, contributor, subscriber. (see: npm run --silent cli -- user create --help)',
    ],
    [
      ['user', 'list', '--login', 'x'],
      "error: unknown option '--login' (see: npm run --silent cli -- user list --help)",
    ],
    [
      ['import', 'ics'],
      "error: missing required argument 'file-or-URL' (see: npm run --silent cli -- import ics --help)",
    ],
    [
      ['app-password', 'revoke', '--login', 'x', '--uuid', 'u', '--all'],
      "error: option '--uuid <uuid>' cannot be used with option '--all' " +
        '(see: npm run --silent cli -- app-password revoke --help)',
    ],
  ])('refuses %j with exit 2 and one line: %s', async (argv, line) => {
    const result = await run(...argv);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n').filter(Boolean)).toEqual([line]);
  });

  it('prints the group help (exit 2) for a group without its command', async () => {
    const result = await run('app-password');
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toMatch(/^Usage: cli app-password/);
  });
});

describe('failures in words', () => {
  const systemError = (code: string, extra: object) =>
    Object.assign(new Error(`${code}: raw text`), { code, ...extra });

  it('names the file asked for, never the partial file written first, nor the raw error', () => {
    const partial = systemError('EACCES', { syscall: 'open', path: '/srv/backups/.calendar.jsonl.14341.partial' });
    expect(describeError(partial)).toEqual({
      line: 'permission denied on /srv/backups/calendar.jsonl (run as a user who may use it, or choose another path)',
      exitCode: EXIT.usage,
    });
    const missing = systemError('ENOENT', { syscall: 'open', path: `${__dirname}/nope.ics` });
    expect(describeError(missing)).toEqual({
      line: `no such file: ${__dirname}/nope.ics (check the path)`,
      exitCode: EXIT.usage,
    });
    const noFolder = systemError('ENOENT', { syscall: 'open', path: '/no/such/folder/.x.jsonl.1.partial' });
    expect(describeError(noFolder).line).toBe(
      'no folder /no/such/folder for /no/such/folder/x.jsonl (create it, or choose another path)',
    );
  });

  it('says what to check when nothing answers', () => {
    const refused = systemError('ECONNREFUSED', { address: '127.0.0.1', port: 5433 });
    expect(describeError(refused)).toEqual({
      line: 'nothing answers at 127.0.0.1:5433 (is it running? check the URL or DATABASE_URL)',
      exitCode: EXIT.failed,
    });
    expect(describeError(systemError('ENOTFOUND', { hostname: 'db.example' })).line).toMatch(/^the host db\.example/);
  });

  it('keeps one line of any other error, exit 1', () => {
    expect(describeError(new Error('the dump ends early\nstack…'))).toEqual({
      line: 'the dump ends early',
      exitCode: EXIT.failed,
    });
  });
});
