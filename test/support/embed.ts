/**
 * The embeddable calendar's build for tests: `npm run build:embed` through scripts/start.mjs, which builds only when
 * its inputs changed since the last build (a fresh clone builds once, in a second or two).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import type { EmbedBuild } from '../../src/embed/build';
import { EMBED_BUILD, PROJECT_ROOT } from '../../src/paths';
import { NS, type TestService } from './app';

export function embedBuild(): EmbedBuild {
  execFileSync(process.execPath, [path.join(PROJECT_ROOT, 'scripts', 'start.mjs'), '--build', 'embed'], {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: 110_000,
  });
  return JSON.parse(fs.readFileSync(path.join(EMBED_BUILD, 'manifest.json'), 'utf8')) as EmbedBuild;
}

/** A published event made through the API by an editor (the calendar's seed); answers its id. */
export async function publishEvent(service: TestService, body: Record<string, unknown>): Promise<number> {
  const res = await request(service.app)
    .post(`${NS}/events`)
    .auth(...service.as('editor'))
    .send({ status: 'publish', ...body });
  if (res.status !== 201) throw new Error(`seeding ${body.title}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as number;
}
