/**
 * The embeddable calendar's build for tests: `npm run build:embed` through scripts/start.mjs, which builds only when
 * its inputs changed since the last build (a fresh clone builds once, in a second or two).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { EmbedBuild } from '../../src/embed/build';
import { EMBED_BUILD, PROJECT_ROOT } from '../../src/paths';

export function embedBuild(): EmbedBuild {
  execFileSync(process.execPath, [path.join(PROJECT_ROOT, 'scripts', 'start.mjs'), '--build', 'embed'], {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: 110_000,
  });
  return JSON.parse(fs.readFileSync(path.join(EMBED_BUILD, 'manifest.json'), 'utf8')) as EmbedBuild;
}
