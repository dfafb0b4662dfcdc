/**
 * `npm start` and `npm run build`: build only what is stale, then serve (docs/decisions.md D95).
 *
 * Three build targets, each with the inputs it is made from and the npm script that makes it:
 *   - `server`: `dist/src/` (TypeScript compiled by `npm run build:server`), from src/, generated/*.ts, the tsconfigs
 *     and the lock file;
 *   - `docs`: `dist/docs/` (the Redoc site in every language, `npm run docs`), from the bundled specs in generated/,
 *     scripts/build-docs.ts, the language list, .redocly.yaml and the lock file;
 *   - `embed`: `dist/embed/` (the embeddable calendar, `npm run build:embed`, D140), from src/embed/client/,
 *     scripts/build-embed.mjs and the lock file.
 * A target is stale when its output is missing or the SHA-256 of its inputs (paths and contents, not mtimes, so a
 * fresh clone and a `touch` agree) differs from the stamp written in dist/.stamps/ after its last successful build.
 *
 *   node scripts/start.mjs             build a stale server, start a stale docs build in the background, then serve
 *   node scripts/start.mjs --build     build every stale target and wait (`npm run build`); --force: all of them;
 *                                      names after it build only those (`--build server`: no documentation site)
 *   node scripts/start.mjs --check     print {"ms", "stale": [...]} and build nothing
 *
 * Plain JavaScript run by node itself: the check costs a few tens of milliseconds, where tsx would add seconds.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const STAMPS = path.join(ROOT, 'dist', '.stamps');

/** The build targets: inputs (files, or folders with the file endings that count), output, npm script. */
const TARGETS = [
  {
    name: 'server',
    inputs: [
      { dir: 'src', ext: ['.ts'] },
      { dir: 'generated', ext: ['.ts'] },
      'tsconfig.json',
      'tsconfig.build.json',
      'package-lock.json',
    ],
    output: 'dist/src/server.js',
    script: 'build:server',
  },
  {
    name: 'docs',
    inputs: [
      { dir: 'generated', ext: ['.json'] },
      'scripts/build-docs.ts',
      'src/config.ts',
      'src/paths.ts',
      '.redocly.yaml',
      'package-lock.json',
    ],
    output: 'dist/docs/index.html',
    script: 'docs',
  },
  {
    name: 'embed',
    inputs: [{ dir: 'src/embed/client', ext: ['.ts', '.json'] }, 'scripts/build-embed.mjs', 'package-lock.json'],
    output: 'dist/embed/manifest.json',
    script: 'build:embed',
  },
];

/** Every file an input names, relative to the root, sorted (a missing file or folder counts as absent). */
function files(input) {
  if (typeof input === 'string') return [input];
  const dir = path.join(ROOT, input.dir);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && input.ext.some((ext) => entry.name.endsWith(ext)))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath ?? entry.path, entry.name)))
    .sort();
}

/** The digest of a target's inputs: each file's path and content, in a fixed order. */
function digest(target) {
  const hash = createHash('sha256');
  for (const file of target.inputs.flatMap(files)) {
    const full = path.join(ROOT, file);
    hash.update(`${file.split(path.sep).join('/')}\0`);
    hash.update(fs.existsSync(full) ? fs.readFileSync(full) : '\0absent\0');
    hash.update('\0');
  }
  return hash.digest('hex');
}

const stampFile = (target) => path.join(STAMPS, `${target.name}.json`);

function isStale(target, hash) {
  if (!fs.existsSync(path.join(ROOT, target.output))) return true;
  try {
    return JSON.parse(fs.readFileSync(stampFile(target), 'utf8')).inputs !== hash;
  } catch {
    return true;
  }
}

function writeStamp(target, hash) {
  fs.mkdirSync(STAMPS, { recursive: true });
  fs.writeFileSync(stampFile(target), `${JSON.stringify({ inputs: hash })}\n`);
}

/** Each target with its digest and whether it must be built. */
function survey() {
  return TARGETS.map((target) => {
    const hash = digest(target);
    return { target, hash, stale: isStale(target, hash) };
  });
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const say = (line) => process.stderr.write(`start: ${line}\n`);

/** Builds a target in the foreground; exits with its status when it fails. */
function buildNow({ target, hash }) {
  say(`building ${target.name} (npm run ${target.script})`);
  fs.rmSync(stampFile(target), { force: true });
  const run = spawnSync(npm, ['run', '--silent', target.script], { cwd: ROOT, stdio: 'inherit' });
  if (run.status !== 0) {
    say(`npm run ${target.script} failed: fix the error above, then run npm start again`);
    process.exit(run.status ?? 1);
  }
  writeStamp(target, hash);
}

/**
 * Builds a target beside the running server, at a lower priority so it does not slow the first answers; stops it
 * when the server stops. The stamp is written only when it succeeds, so an interrupted build runs again next time.
 */
function buildInBackground({ target, hash }) {
  say(`building ${target.name} in the background (npm run ${target.script}); it is served once done`);
  fs.rmSync(stampFile(target), { force: true });
  const child = spawn(npm, ['run', '--silent', target.script], { cwd: ROOT, stdio: 'inherit', detached: true });
  try {
    os.setPriority(child.pid, 10);
  } catch {
    /* not allowed here: build at normal priority */
  }
  const stop = () => {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.once('exit', stop);
  child.on('exit', (code) => {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    process.off('exit', stop);
    if (code === 0) {
      writeStamp(target, hash);
      say(`${target.name} built`);
    } else say(`npm run ${target.script} failed (${code}): the next npm start tries again`);
  });
  child.unref();
}

function main(args) {
  const started = performance.now();
  const targets = survey();
  if (args.includes('--check')) {
    const ms = Math.round((performance.now() - started) * 10) / 10;
    const stale = targets.filter((t) => t.stale).map((t) => t.target.name);
    process.stdout.write(`${JSON.stringify({ ms, stale })}\n`);
    return;
  }
  const force = args.includes('--force');
  if (args.includes('--build') || force) {
    const named = args.filter((arg) => !arg.startsWith('--'));
    const chosen = targets.filter((t) => !named.length || named.includes(t.target.name));
    for (const t of chosen) if (t.stale || force) buildNow(t);
    return;
  }
  const [server, ...rest] = targets;
  if (server.stale) buildNow(server);
  for (const t of rest) if (t.stale) buildInBackground(t);
  createRequire(import.meta.url)(path.join(ROOT, server.target.output));
}

main(process.argv.slice(2));
