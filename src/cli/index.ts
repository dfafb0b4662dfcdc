/**
 * The operator's command line (`npm run --silent cli -- <command>`, scripts/cli.ts; D5, D97), built with commander:
 * per-command help with examples (`--help`/`-h` and `--version` everywhere), suggestions for a mistyped command, and
 * one line per failure on stderr with a documented exit code (errors.ts). Results are JSON lines on stdout.
 * Every command uses DATABASE_URL like the server; the commands themselves are listed in commands/index.ts.
 */
import { Command, CommanderError } from 'commander';
import { COMMANDS } from './commands';
import { describe, EXIT, EXIT_CODES_HELP } from './errors';

export { EXIT } from './errors';

/** The command each commander error came from, for the help it points at. */
const errorsOf = new WeakMap<CommanderError, string>();

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

export function buildProgram(version: string): Command {
  const program = new Command('cli')
    .description('Operator commands of the calendar service: users, application passwords, imports, backups.')
    .usage('<command> [options]    (run as: calendar-events <command>, or npm run --silent cli -- <command>)')
    .configureHelp({ helpWidth: 118 })
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand('help [command]', 'show help for a command')
    .addHelpText(
      'after',
      '\nEvery command uses DATABASE_URL like the server (default sqlite:./data/calendar.sqlite) and prints JSON\n' +
        `lines on stdout. Each has its own help and examples: cli <command> --help.\n\n${EXIT_CODES_HELP}`,
    )
    .showSuggestionAfterError(true)
    .showHelpAfterError(false);
  for (const register of COMMANDS) register(program);
  // every command and group: the same error handling and help width, and --version
  const configure = (command: Command): void => {
    command
      .exitOverride((err) => {
        errorsOf.set(err, commandPath(command));
        throw err;
      })
      .configureOutput({ outputError: () => {} })
      .configureHelp({ helpWidth: 118 });
    if (command !== program) command.version(version, '-V, --version', 'print the version');
    command.commands.forEach(configure);
  };
  configure(program);
  return program;
}

/** Runs the CLI on `argv` (without node and the script) and resolves with the exit code. */
export async function runCli(
  argv: string[],
  version: string,
  stderr: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<number> {
  const program = buildProgram(version);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here with exit code 0; a group without its subcommand printed its help
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT.ok;
      if (err.code === 'commander.help') return EXIT.usage;
      const message = err.message.replace(/^error:\s*/, '').replace(/\s*\n\s*/g, ' ');
      const where = errorsOf.get(err);
      stderr(`error: ${message} (see: npm run --silent cli -- ${where ? `${where} ` : ''}--help)`);
      return EXIT.usage;
    }
    const { line, exitCode } = describe(err);
    stderr(`error: ${line}`);
    return exitCode;
  }
}
