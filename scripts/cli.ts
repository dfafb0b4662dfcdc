/**
 * `npm run --silent cli -- <command>`: the operator commands (src/cli/, D5, D97). `--help` lists them with the exit
 * codes; `<command> --help` shows each one's options and examples.
 */
import { version } from '../package.json';
import { runCli } from '../src/cli';

runCli(process.argv.slice(2), version).then((code) => {
  process.exitCode = code;
});
