/** Files the service reads at run time, found from the project root (the same from src/ under tsx and dist/src/). */
import fs from 'node:fs';
import path from 'node:path';

function findRoot(dir: string): string {
  if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
  const parent = path.dirname(dir);
  if (parent === dir) throw new Error(`package.json not found above ${__dirname}`);
  return findRoot(parent);
}

export const PROJECT_ROOT = findRoot(__dirname);
export const BUNDLED_SPEC = path.join(PROJECT_ROOT, 'generated', 'openapi.json');

/** The bundled spec with its texts in `language` (English is the bundle itself). */
export function localisedSpec(language: string): string {
  return language === 'en' ? BUNDLED_SPEC : path.join(PROJECT_ROOT, 'generated', `openapi.${language}.json`);
}

/** The static documentation site built by `npm run docs` (scripts/build-docs.ts), served at `{base_url}/docs/`. */
export const DOCS_SITE = path.join(PROJECT_ROOT, 'dist', 'docs');
/** The embeddable calendar built by `npm run build:embed` (scripts/build-embed.mjs), served at `{base_url}/embed/`. */
export const EMBED_BUILD = path.join(PROJECT_ROOT, 'dist', 'embed');
