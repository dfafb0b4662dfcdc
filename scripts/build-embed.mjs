/**
 * `npm run build:embed`: bundles the embeddable calendar (src/embed/client/) with esbuild into one versioned file,
 * `dist/embed/calendar.<hash>.js`, its gzip twin (`.js.gz`, served to clients that accept it) and `manifest.json`
 * naming the current file, which `/embed/calendar.js` imports (docs/decisions.md D140). The hash is of the bytes,
 * so the same sources and lock file give the same name. The last few builds are kept, so that a page whose
 * short-cached entry still names the previous file keeps working across a deploy.
 *
 *   node scripts/build-embed.mjs           build, print {"file", "bytes", "gzip"}
 *
 * Plain JavaScript run by node itself (esbuild compiles the TypeScript); `npm run build` and `npm start` run it
 * when its inputs changed (scripts/start.mjs, target `embed`).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'dist', 'embed');
const ENTRY = path.join(ROOT, 'src', 'embed', 'client', 'index.ts');
/** How many older builds stay beside the current one. */
const KEEP = 4;
const VERSIONED = /^calendar\.[0-9a-f]{12}\.js$/;

const result = await build({
  entryPoints: [ENTRY],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2020',
  minify: true,
  legalComments: 'eof',
  write: false,
  logLevel: 'warning',
  define: { 'process.env.NODE_ENV': '"production"' },
});
const bytes = result.outputFiles[0].contents;
const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 12);
const file = `calendar.${hash}.js`;
const gzipped = zlib.gzipSync(bytes, { level: 9 });

fs.mkdirSync(OUT, { recursive: true });
fs.writeFileSync(path.join(OUT, file), bytes);
fs.writeFileSync(path.join(OUT, `${file}.gz`), gzipped);
const integrity = `sha384-${createHash('sha384').update(bytes).digest('base64')}`;
const manifest = { file, bytes: bytes.length, gzip: gzipped.length, integrity };
fs.writeFileSync(path.join(OUT, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);

// keep the newest few older builds (by modification time), drop the rest
const older = fs
  .readdirSync(OUT)
  .filter((name) => VERSIONED.test(name) && name !== file)
  .map((name) => ({ name, at: fs.statSync(path.join(OUT, name)).mtimeMs }))
  .sort((a, b) => b.at - a.at);
for (const { name } of older.slice(KEEP)) {
  fs.rmSync(path.join(OUT, name), { force: true });
  fs.rmSync(path.join(OUT, `${name}.gz`), { force: true });
}
process.stdout.write(`${JSON.stringify({ file, bytes: bytes.length, gzip: gzipped.length })}\n`);
