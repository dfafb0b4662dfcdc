/**
 * The embeddable calendar's current build: `dist/embed/manifest.json`, written by scripts/build-embed.mjs beside
 * the versioned files it names. Read again only when the manifest changes, so a rebuild is served without a
 * restart; absent until `npm run build` has run.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface EmbedBuild {
  /** `calendar.<hash>.js`: the current versioned file. */
  file: string;
  bytes: number;
  /** Its size gzipped. */
  gzip: number;
  /** Subresource Integrity of the file (`sha384-…`). */
  integrity: string;
}

/** The name of a versioned build (the hash is the first 12 hex digits of the SHA-256 of its bytes). */
export const VERSIONED = /^calendar\.[0-9a-f]{12}\.js$/;

export function buildReader(dir: string): () => EmbedBuild | undefined {
  let memo: { at: number; build: EmbedBuild } | undefined;
  return () => {
    const file = path.join(dir, 'manifest.json');
    let at: number;
    try {
      at = fs.statSync(file).mtimeMs;
    } catch {
      memo = undefined;
      return undefined;
    }
    if (memo?.at !== at) memo = { at, build: JSON.parse(fs.readFileSync(file, 'utf8')) as EmbedBuild };
    return memo.build;
  };
}
