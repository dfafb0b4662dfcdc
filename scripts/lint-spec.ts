/**
 * The spec's lint (`npm run lint:spec`, run by CI):
 *   1. our rules: Redocly with `.redocly.yaml` (the stricter house rules) on the source under openapi/;
 *   2. as a user lints it: Redocly's `recommended` rules with no configuration of ours (run from an empty folder, so
 *      no `.redocly.yaml` is found) and Spectral's `spectral:oas` ruleset, on the published bundles, every language
 *      (generated/openapi*.json, which `npm run check:generated` keeps equal to the spec). Neither has an ignore
 *      file, and a warning fails as an error does (D78).
 * `lintAsUsers(files)` is also what test/http/spec-tools.test.ts runs on the `/doc` a running service serves.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'node_modules', '.bin');
const QUIET = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

/** Runs a command; resolves with its exit code and output (a failing lint exits non-zero: that is an answer). */
function run(command: string, args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: QUIET, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Redocly `recommended` with no configuration: one line per problem, warnings included. */
async function redoclyDefaults(files: string[], cwd: string): Promise<string[]> {
  const { code, stdout, stderr } = await run(
    path.join(BIN, 'redocly'),
    ['lint', ...files, '--format=github-actions', '--max-problems=1000'],
    cwd,
  );
  const problems = stdout.split('\n').filter((line) => line.startsWith('::'));
  if (code !== 0 && problems.length === 0) problems.push(`redocly exited ${code}: ${stderr.trim()}`);
  return problems.map((line) => `redocly ${line}`);
}

/** Spectral `spectral:oas` (the repository's .spectral.yaml extends it and adds nothing): every severity counts. */
async function spectralOas(files: string[], cwd: string): Promise<string[]> {
  const { code, stdout, stderr } = await run(
    path.join(BIN, 'spectral'),
    ['lint', ...files, '--ruleset', path.join(ROOT, '.spectral.yaml'), '--format=json', '--fail-severity=hint', '-q'],
    cwd,
  );
  const text = stdout.trim();
  const results = (text.startsWith('[') ? JSON.parse(text) : []) as Array<{
    code: string;
    message: string;
    path: string[];
    source?: string;
  }>;
  const problems = results.map(
    (r) => `spectral ${r.code} ${path.basename(r.source ?? '')}#${r.path.join('.')}: ${r.message}`,
  );
  if (code !== 0 && problems.length === 0) problems.push(`spectral exited ${code}: ${stderr.trim() || text}`);
  return problems;
}

/** What Redocly `recommended` and Spectral `spectral:oas` report on these documents, as a user runs them. */
export async function lintAsUsers(files: string[]): Promise<string[]> {
  const absolute = files.map((file) => path.resolve(file));
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'spec-lint-'));
  try {
    const [redocly, spectral] = await Promise.all([redoclyDefaults(absolute, empty), spectralOas(absolute, empty)]);
    return [...redocly, ...spectral];
  } finally {
    fs.rmSync(empty, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const ours = await run(
    path.join(BIN, 'redocly'),
    ['lint', 'openapi/openapi.yaml', '--config', '.redocly.yaml', '--format=stylish'],
    ROOT,
  );
  if (ours.code !== 0) {
    process.stderr.write(ours.stdout + ours.stderr);
    throw new Error('the spec breaks the rules of .redocly.yaml');
  }
  const generated = path.join(ROOT, 'generated');
  const bundles = fs
    .readdirSync(generated)
    .filter((name) => /^openapi(\.[a-z-]+)?\.json$/.test(name))
    .map((name) => path.join(generated, name));
  const problems = await lintAsUsers(bundles);
  if (problems.length) {
    process.stderr.write(`${problems.join('\n')}\n`);
    throw new Error(`${problems.length} problem(s) with the default rules of Redocly and Spectral`);
  }
  console.log(
    `spec lint: .redocly.yaml, Redocly recommended and Spectral spectral:oas clean on ${bundles.length} bundles`,
  );
}

if (require.main === module) {
  main().catch((error: Error) => {
    console.error(error.message);
    process.exit(1);
  });
}
