/**
 * How the CLI fails (D97): one line on stderr that says what happened and what to do, and an exit code by kind.
 * System errors are told in words about the path or address the operator named, never as raw `ENOENT …` text nor
 * with the name of a temporary file.
 */
import fs from 'node:fs';
import path from 'node:path';

export const EXIT = {
  /** Done. */
  ok: 0,
  /** The work failed: a source, a server or the database could not be reached or read; a dump did not load. */
  failed: 1,
  /** The command line needs fixing: an unknown command or option, a missing or invalid value, a user, file or
   * application password that does not exist (or a login that already does). */
  usage: 2,
} as const;

/** The exit codes as `--help` and the README list them. */
export const EXIT_CODES_HELP = `Exit codes:
  0  done
  1  the work failed: a source, a server or the database could not be reached or read, or a dump did not load
  2  the command line needs fixing: an unknown command or option, a missing or invalid value, a user, file or
     application password that does not exist, or a login that already does`;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.usage,
  ) {
    super(message);
  }
}

/** A mistake in the command line (exit 2). */
export const usage = (message: string) => new CliError(message, EXIT.usage);

/** `.<name>.<pid>.partial` (src/ops/backup.ts writes there first): the file the operator asked for. */
const asNamed = (file: string) => file.replace(/(^|[/\\])\.([^/\\]+)\.\d+\.partial(?:-journal)?$/, '$1$2');

interface SystemError extends Error {
  code?: string;
  syscall?: string;
  path?: string;
  address?: string;
  port?: number;
  hostname?: string;
}

/** The one line and exit code for anything a command threw. */
export function describe(err: unknown): { line: string; exitCode: number } {
  if (err instanceof CliError) return { line: err.message, exitCode: err.exitCode };
  const e = (err ?? {}) as SystemError;
  const file = e.path === undefined ? undefined : asNamed(e.path);
  const folder = file === undefined ? undefined : path.dirname(file);
  switch (e.code) {
    case 'ENOENT':
      if (file === undefined || folder === undefined) break;
      if (e.syscall === 'scandir' || e.syscall === 'opendir')
        return { line: `no folder ${file} (create it, or choose another path)`, exitCode: EXIT.usage };
      return fs.existsSync(folder)
        ? { line: `no such file: ${file} (check the path)`, exitCode: EXIT.usage }
        : { line: `no folder ${folder} for ${file} (create it, or choose another path)`, exitCode: EXIT.usage };
    case 'ENOTDIR':
    case 'EISDIR':
      return { line: `${file ?? 'the path'} is not usable here: name a file, not a folder`, exitCode: EXIT.usage };
    case 'EACCES':
    case 'EPERM':
      return {
        line: `permission denied on ${file ?? 'a file'} (run as a user who may use it, or choose another path)`,
        exitCode: EXIT.usage,
      };
    case 'EEXIST':
      return { line: `${file ?? 'the file'} exists already (choose another path)`, exitCode: EXIT.usage };
    case 'ENOSPC':
      return { line: `no space left to write ${file ?? 'the file'} (free some, or choose another disk)`, exitCode: 1 };
    case 'ECONNREFUSED':
      return {
        line: `nothing answers at ${e.address ?? '?'}:${e.port ?? '?'} (is it running? check the URL or DATABASE_URL)`,
        exitCode: EXIT.failed,
      };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return {
        line: `the host ${e.hostname ?? ''} is not known (check the URL or DATABASE_URL, and the network)`,
        exitCode: EXIT.failed,
      };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { line: message.split('\n')[0], exitCode: EXIT.failed };
}
