/**
 * `npm start` builds only what is stale (scripts/start.mjs, D95). The real script runs in a temporary project whose
 * npm scripts `build:server`, `docs` and `build:embed` only log that they ran and write their output, so the test
 * shows which targets a start rebuilds without spending a minute on TypeScript and Redoc: none on an unchanged
 * checkout, the one whose inputs changed, none for a changed mtime alone, and again after a failed or missing build.
 * The docs build of a plain start runs beside the server and is stamped when it ends.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './support';

/** The fake builds: append the target's name to build.log, write the target's output (or fail on FAIL_<target>). */
const FAKE_BUILD = `
const fs = require('node:fs');
const target = process.argv[2];
fs.appendFileSync('build.log', target + '\\n');
if (fs.existsSync('FAIL_' + target)) process.exit(3);
if (target === 'server') {
  fs.mkdirSync('dist/src', { recursive: true });
  fs.copyFileSync('fake-server.js', 'dist/src/server.js');
} else if (target === 'embed') {
  fs.mkdirSync('dist/embed', { recursive: true });
  fs.writeFileSync('dist/embed/manifest.json', '{}');
} else {
  fs.mkdirSync('dist/docs', { recursive: true });
  fs.writeFileSync('dist/docs/index.html', '<!DOCTYPE html>');
}
`;

/** The fake server: says it serves, then waits (up to 60 s) for the docs built beside it to be stamped. */
const FAKE_SERVER = `
const fs = require('node:fs');
const path = require('node:path');
console.log('serving');
const stamp = path.join(__dirname, '..', '.stamps', 'docs.json');
const deadline = Date.now() + 60000;
const wait = () => {
  if (fs.existsSync(stamp)) console.log('docs stamped');
  else if (Date.now() < deadline) setTimeout(wait, 50);
};
wait();
`;

let dir: string;

const write = (file: string, content: string) => {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), content);
};

function start(...args: string[]) {
  const run = spawnSync(process.execPath, ['scripts/start.mjs', ...args], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 90_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The targets built since the last call. */
let seen = 0;
function built(): string[] {
  const log = path.join(dir, 'build.log');
  const lines = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  const fresh = lines.slice(seen);
  seen = lines.length;
  return fresh;
}

const stale = () => JSON.parse(start('--check').stdout).stale as string[];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'calendar-start-'));
  fs.mkdirSync(path.join(dir, 'scripts'));
  fs.copyFileSync(path.join(ROOT, 'scripts', 'start.mjs'), path.join(dir, 'scripts', 'start.mjs'));
  write(
    'package.json',
    JSON.stringify({
      name: 'start-fixture',
      private: true,
      scripts: {
        'build:server': 'node fake-build.js server',
        docs: 'node fake-build.js docs',
        'build:embed': 'node fake-build.js embed',
      },
    }),
  );
  write('fake-build.js', FAKE_BUILD);
  write('fake-server.js', FAKE_SERVER);
  write('src/server.ts', 'export const a = 1;\n');
  write('src/http/app.ts', 'export const b = 2;\n');
  write('src/embed/client/index.ts', 'export const c = 3;\n');
  write('generated/schema.d.ts', 'export interface paths {}\n');
  write('generated/openapi.json', '{"openapi":"3.1.1"}\n');
  write('generated/openapi.fr.json', '{"openapi":"3.1.1"}\n');
  write('tsconfig.json', '{}\n');
  write('package-lock.json', '{}\n');
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('scripts/start.mjs', () => {
  it('builds everything once on a fresh checkout, then nothing while the inputs are unchanged', () => {
    expect(stale()).toEqual(['server', 'docs', 'embed']);
    expect(start('--build').status).toBe(0);
    expect(built()).toEqual(['server', 'docs', 'embed']);
    expect(stale()).toEqual([]);
    expect(start('--build').status).toBe(0);
    expect(built()).toEqual([]);
  });

  it('rebuilds only the target whose inputs changed', () => {
    write('src/http/app.ts', 'export const b = 3;\n');
    expect(stale()).toEqual(['server']);
    start('--build');
    expect(built()).toEqual(['server']);

    write('generated/openapi.fr.json', '{"openapi":"3.1.1","info":{}}\n');
    expect(stale()).toEqual(['docs']);
    start('--build');
    expect(built()).toEqual(['docs']);

    write('src/new-room.ts', 'export {};\n'); // a new file is a change
    write('package-lock.json', '{"lockfileVersion":3}\n'); // and a new lock file changes all three
    expect(stale()).toEqual(['server', 'docs', 'embed']);
    start('--build');
    expect(built()).toEqual(['server', 'docs', 'embed']);
  });

  it('compares contents, not times: a touched file or a new clone of the same tree builds nothing', () => {
    const later = new Date(Date.UTC(2030, 0, 1));
    fs.utimesSync(path.join(dir, 'src/server.ts'), later, later);
    fs.utimesSync(path.join(dir, 'generated/openapi.json'), later, later);
    expect(stale()).toEqual([]);
  });

  it('rebuilds a target whose output is gone, or whose last build failed', () => {
    fs.rmSync(path.join(dir, 'dist/docs'), { recursive: true });
    expect(stale()).toEqual(['docs']);
    start('--build');
    expect(built()).toEqual(['docs']);

    write('src/server.ts', 'export const a = 2;\n');
    write('FAIL_server', '');
    const failed = start('--build');
    expect(failed.status).toBe(3);
    expect(failed.stderr).toContain('npm run build:server failed');
    expect(built()).toEqual(['server']);
    expect(stale()).toEqual(['server']);
    fs.rmSync(path.join(dir, 'FAIL_server'));
    expect(start('--build').status).toBe(0);
    expect(built()).toEqual(['server']);
    expect(stale()).toEqual([]);
  });

  it('forces every target with --force', () => {
    expect(start('--force').status).toBe(0);
    expect(built()).toEqual(['server', 'docs', 'embed']);
  });

  it('serves at once on an unchanged checkout, building nothing', () => {
    const run = start();
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('serving');
    expect(built()).toEqual([]);
  });

  it('builds stale docs beside the serving server and stamps them when done', () => {
    write('generated/openapi.json', '{"openapi":"3.1.1","info":{"title":"changed"}}\n');
    const run = start();
    expect(run.stdout.split('\n').filter(Boolean)).toEqual(['serving', 'docs stamped']);
    expect(run.stderr).toContain('building docs in the background');
    expect(built()).toEqual(['docs']);
    expect(stale()).toEqual([]);
  });
});

describe('the staleness check on this checkout', () => {
  it('answers in well under a second of work, the whole cost of a second start beyond the server itself', () => {
    const { ms, stale: targets } = JSON.parse(
      spawnSync(process.execPath, ['scripts/start.mjs', '--check'], { cwd: ROOT, encoding: 'utf8' }).stdout,
    ) as { ms: number; stale: string[] };
    // a measure reported, with a bound loose enough for a loaded machine (typically 20–60 ms here)
    process.stdout.write(`start --check on this checkout: ${ms} ms, stale: ${JSON.stringify(targets)}\n`);
    expect(ms).toBeLessThan(5_000);
    expect(targets.every((t) => ['server', 'docs', 'embed'].includes(t))).toBe(true);
  });
});
