#!/usr/bin/env node
/**
 * The operator commands as a program: `calendar-events <command>` (package.json `bin`, built to
 * dist/src/cli/main.js, so a production install without devDependencies has them) and `npm run cli` (under tsx).
 * `--help` lists them with the exit codes; `<command> --help` shows each one's options and examples.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../paths';
import { runCli } from './index';

const { version } = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  version: string;
};

runCli(process.argv.slice(2), version).then((code) => {
  process.exitCode = code;
});
