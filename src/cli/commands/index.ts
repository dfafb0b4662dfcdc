/**
 * The CLI's commands, in the order `--help` lists them. Each module registers its commands on the program (with
 * their options, help and examples); adding a command is one file under commands/ and one line here.
 */
import type { Command } from 'commander';
import { register as appPassword } from './app-password';
import { register as dump } from './dump';
import { register as imports } from './import';
import { register as mcp } from './mcp';
import { register as user } from './user';

export const COMMANDS: ReadonlyArray<(program: Command) => void> = [user, appPassword, imports, dump, mcp];
