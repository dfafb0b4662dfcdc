/**
 * Builds the documentation site into dist/docs/ (served at `{base_url}/docs/`):
 *   - `<lang>/index.html`: a static Redoc page per language, from generated/openapi.json (English) or
 *     generated/openapi.<lang>.json (languages whose localized bundle does not exist yet are left out, with a warning),
 *   - `redoc.standalone.js`: the Redoc bundle the pages hydrate with. `redocly build-docs` points the pages at
 *     Redocly's CDN; the service runs without internet, so the pages load the copy shipped inside @redocly/cli
 *     instead (its sha384 is checked against the page's `integrity`, kept only when they match), less the one
 *     thing it would fetch from another host (see `offlineBundle`),
 *   - `index.html`: the service name and a link to each language, labelled in that language.
 * The site is built in a temporary folder next to dist/docs/ and then swapped in whole.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { LANGUAGES, type Language } from '../src/config';
import { DOCS_SITE, PROJECT_ROOT, localisedSpec } from '../src/paths';

const REDOCLY = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'redocly');
const REDOC_BUNDLE = path.join(PROJECT_ROOT, 'node_modules', '@redocly', 'cli', 'lib', 'chunks', 'redoc.standalone.js');
const BUNDLE_NAME = 'redoc.standalone.js';
const CDN_URL = String.raw`https://cdn\.redocly\.com/redoc/v([\w.-]+)/bundles/redoc\.standalone\.js`;

/** Each language's name in that language: the labels of the index page. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  nl: 'Nederlands',
  en: 'English',
  fr: 'Français',
  de: 'Deutsch',
  it: 'Italiano',
  ja: '日本語',
  nb: 'Norsk bokmål',
  pl: 'Polski',
  'pt-br': 'Português (Brasil)',
  es: 'Español',
  sv: 'Svenska',
};

/**
 * The local Redoc bundle: its version (from its licence header), the SRI hash of the copy in @redocly/cli (which a
 * page built for it names) and the copy the site serves, with that copy's hash.
 */
interface Bundle {
  version: string | undefined;
  integrity: string;
  served: string;
  servedIntegrity: string;
}

const sri = (content: string | Buffer) => `sha384-${createHash('sha384').update(content).digest('base64')}`;

function readBundle(): Bundle {
  if (!fs.existsSync(REDOC_BUNDLE))
    throw new Error(`${path.relative(PROJECT_ROOT, REDOC_BUNDLE)} not found: is @redocly/cli installed?`);
  const content = fs.readFileSync(REDOC_BUNDLE, 'utf8');
  const version = /^\s*\*\s*Version:\s*(\S+)/m.exec(content.slice(0, 1000))?.[1];
  const served = offlineBundle(content);
  return { version, integrity: sri(content), served, servedIntegrity: sri(served) };
}

/**
 * The sidebar's "API docs by Redocly" shows a logo from cdn.redoc.ly once mounted; the pages' policy blocks it, so
 * readers saw a broken image (and the console an error) until the image gave up. The copy the site serves never
 * mounts it: the attribution keeps its name as text (see `offlineHead`).
 */
export function offlineBundle(content: string): string {
  const logo = /(useEffect\)\(\(\)=>\{)(\w+)\(!0\)(\},\[\]\),\w+\?\(0,\w+\.jsx\)\(`img`,\{alt:`redocly logo`)/g;
  const found = content.match(logo)?.length ?? 0;
  if (found !== 1)
    throw new Error(`the Redoc bundle's logo component has changed (${found} matches): update scripts/build-docs.ts`);
  return content.replace(logo, (_all, open: string, _show: string, rest: string) => `${open}${rest}`);
}

/**
 * Points a page built by `redocly build-docs` at the local bundle (`../redoc.standalone.js`) and sets its language.
 * Returns the page and the warnings (a version or integrity the local bundle does not match).
 */
export function localisePage(html: string, lang: string, bundle: Bundle): { html: string; warnings: string[] } {
  const warnings: string[] = [];
  const versions = new Set([...html.matchAll(new RegExp(CDN_URL, 'g'))].map((m) => m[1]));
  const preload = /<link\b[^>]*\brel="modulepreload"[^>]*>/.exec(html)?.[0];
  if (
    !preload ||
    !new RegExp(CDN_URL).test(preload) ||
    !/import\s*\{\s*hydrate\s*\}\s*from\s*"https:\/\/cdn\.redocly\.com\//.test(html)
  ) {
    throw new Error(
      'the page of redocly build-docs no longer preloads and imports Redoc from cdn.redocly.com: update scripts/build-docs.ts',
    );
  }
  for (const version of versions) {
    if (version !== bundle.version)
      warnings.push(
        `the page references Redoc ${version}, the local bundle is ${bundle.version ?? 'of unknown version'}`,
      );
  }
  const integrity = /\bintegrity="([^"]*)"/.exec(preload)?.[1];
  let link = preload;
  if (integrity && integrity !== bundle.integrity) {
    warnings.push(`the page's integrity ${integrity} is not the local bundle's ${bundle.integrity}: dropped`);
    link = link.replace(/\s+integrity="[^"]*"/, '');
  } else if (integrity) {
    link = link.replace(integrity, bundle.servedIntegrity);
  }
  let page = html.replace(preload, link).replace(new RegExp(CDN_URL, 'g'), `../${BUNDLE_NAME}`);
  page = page.replace(/<html\b[^>]*>/, `<html lang="${lang}">`);
  page = resolveServerUrls(page);
  if (page.includes('cdn.redocly.com')) throw new Error('a reference to cdn.redocly.com is left in the page');
  // right after <meta charset> (which must stay in the first 1024 bytes), before any script
  const anchor = /<meta charset="[^"]*"\s*\/?>/.exec(page)?.[0] ?? /<head>/.exec(page)?.[0];
  if (!anchor) throw new Error('the page of redocly build-docs has no <head>');
  return { html: page.replace(anchor, `${anchor}\n  ${offlineHead(page)}`), warnings };
}

/**
 * The servers panel and the MCP panel (`x-mcp.servers`: the "Connect" buttons of an assistant) show URLs that start
 * with `{base_url}`; Redoc would resolve them against the page (`…/docs/en/{base_url}/…`). The real base is known
 * only where the page is served, `{base_url}/docs/<lang>/`: the page puts it in before Redoc hydrates.
 */
function resolveServerUrls(page: string): string {
  const call = 'hydrate(__redoc_definition,';
  if (!page.includes(call))
    throw new Error('the page of redocly build-docs no longer calls hydrate(__redoc_definition');
  const resolve = [
    'const __base_url = new URL("../..", location.href).href.replace(/\\/$/, "");',
    'for (const server of [...(__redoc_definition.servers ?? []), ...(__redoc_definition["x-mcp"]?.servers ?? [])]) {',
    '  server.url = server.url.replace("{base_url}", __base_url);',
    '  if (server.variables) delete server.variables.base_url;',
    '  if (server.variables && !Object.keys(server.variables).length) delete server.variables;',
    '}',
  ].join('\n');
  return page.replace(call, () => `${resolve}\n${call}`);
}

/**
 * What keeps a page to its own origin: a Content Security Policy allowing only this origin plus the page's own
 * inline scripts (by hash). Redoc's sidebar still asks cdn.redoc.ly for its logo; the policy blocks that request
 * in the browser, so the attribution gets its name as text instead. No favicon request either.
 */
function offlineHead(page: string): string {
  const scripts = [...page.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
    .filter(([, attributes]) => !/\bsrc=/.test(attributes))
    .map(([, , body]) => `'sha256-${createHash('sha256').update(body, 'utf8').digest('base64')}'`);
  const policy = [
    "default-src 'none'",
    `script-src 'self' ${scripts.join(' ')}`,
    "style-src 'self' 'unsafe-inline'", // styled-components inserts its rules at run time
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self' blob: data:",
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return [
    `<meta http-equiv="Content-Security-Policy" content="${policy}">`,
    '<link rel="icon" href="data:,">',
    '<style>a[href="https://redocly.com/redoc/"] p::after { content: " Redocly"; font-weight: 600; }</style>',
  ].join('\n  ');
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function indexPage(title: string, languages: readonly Language[]): string {
  const items = languages
    .map(
      (lang) =>
        `        <li><a href="${lang}/" hreflang="${lang}" lang="${lang}">${escapeHtml(LANGUAGE_NAMES[lang])}</a></li>`,
    )
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'">
  <link rel="icon" href="data:,">
  <title>${escapeHtml(title)} · documentation</title>
  <style>
    :root { color-scheme: light dark; font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Sans CJK JP", sans-serif; line-height: 1.5; }
    body { margin: 0; padding: 2rem 1rem; }
    main { max-width: 40rem; margin: 0 auto; }
    h1 { font-size: 1.75rem; margin: 0 0 .25rem; }
    ul { list-style: none; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(11rem, 1fr)); gap: .5rem; }
    a { display: block; padding: .6rem .8rem; border: 1px solid currentColor; border-radius: .4rem; color: LinkText; text-decoration: none; }
    a:hover { text-decoration: underline; }
    a:focus-visible { outline: 3px solid Highlight; outline-offset: 2px; }
    footer { margin-top: 2rem; font-size: .9rem; }
    footer a { display: inline; padding: 0; border: 0; text-decoration: underline; }
  </style>
</head>
<body>
  <main>
    <h1>${escapeHtml(title)}</h1>
    <p>API reference documentation. Choose a language:</p>
    <nav aria-label="Languages">
      <ul>
${items}
      </ul>
    </nav>
    <footer>
      <p>The OpenAPI 3.1 document itself: <a href="../calendar/events/v1/doc"><code>calendar/events/v1/doc</code></a>.</p>
    </footer>
  </main>
</body>
</html>
`;
}

const run = promisify(execFile);

async function buildPage(lang: Language, outDir: string, bundle: Bundle): Promise<string[]> {
  const file = path.join(outDir, lang, 'index.html');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  await run(
    REDOCLY,
    ['build-docs', localisedSpec(lang), '--output', file, '--config', path.join(PROJECT_ROOT, '.redocly.yaml')],
    {
      cwd: PROJECT_ROOT,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const page = localisePage(fs.readFileSync(file, 'utf8'), lang, bundle);
  fs.writeFileSync(file, page.html);
  return page.warnings.map((w) => `${lang}: ${w}`);
}

/** Runs `tasks` with at most `limit` at a time, keeping their order. */
async function pool<T>(tasks: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

async function main(): Promise<void> {
  const english = localisedSpec('en');
  if (!fs.existsSync(english))
    throw new Error(`${path.relative(PROJECT_ROOT, english)} is missing: run \`npm run generate\``);
  const languages = LANGUAGES.filter((lang) => fs.existsSync(localisedSpec(lang)));
  const missing = LANGUAGES.filter((lang) => !languages.includes(lang));
  const bundle = readBundle();

  const outDir = `${DOCS_SITE}.building-${process.pid}`;
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  try {
    const concurrency = Math.max(1, Math.min(4, os.availableParallelism()));
    const warnings = new Set(
      (
        await pool(
          languages.map((lang) => () => buildPage(lang, outDir, bundle)),
          concurrency,
        )
      ).flat(),
    );
    fs.writeFileSync(path.join(outDir, BUNDLE_NAME), bundle.served);
    const title = (JSON.parse(fs.readFileSync(english, 'utf8')) as { info: { title: string } }).info.title;
    fs.writeFileSync(path.join(outDir, 'index.html'), indexPage(title, languages));
    fs.rmSync(DOCS_SITE, { recursive: true, force: true });
    fs.renameSync(outDir, DOCS_SITE);
    for (const warning of warnings) console.warn(`build-docs: ${warning}`);
  } catch (err) {
    fs.rmSync(outDir, { recursive: true, force: true });
    throw err;
  }
  console.log(
    `${path.relative(PROJECT_ROOT, DOCS_SITE)}/: ${languages.join(', ')} (Redoc ${bundle.version}, served locally)`,
  );
  if (missing.length) {
    console.warn(
      `build-docs: no localized spec yet for ${missing.join(', ')} (generated/openapi.<lang>.json): left out`,
    );
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    const stderr = (err as { stderr?: string }).stderr;
    console.error(err instanceof Error ? err.message : err, stderr ? `\n${stderr}` : '');
    process.exitCode = 1;
  });
}
