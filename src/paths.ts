/** Files the service reads at run time, found from the project root (the same from src/ under tsx and dist/src/). */
import fs from 'node:fs';
import path from 'node:path';

function findRoot(dir: string): string {
  if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
  const parent = path.dirname(dir);
  if (parent === dir) throw new Error('package.json not found above ' + __dirname);
  return findRoot(parent);
}

export const PROJECT_ROOT = findRoot(__dirname);
export const BUNDLED_SPEC = path.join(PROJECT_ROOT, 'generated', 'openapi.json');
