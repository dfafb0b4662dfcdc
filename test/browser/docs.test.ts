/**
 * The documentation site in a real browser: headless Chromium (Debian's `chromium`, or CHROMIUM_PATH) through
 * playwright-core against the running service. It opens `/docs/` and the Redoc pages in English, Japanese and Dutch,
 * follows a link to an operation (which only the hydrated page can do), checks the operation's summary in the
 * page's language, checks that nothing was asked of a host other than this machine, and saves full-page screenshots
 * under test-output/ (git-ignored).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page, type Request } from 'playwright-core';
import YAML from 'yaml';
import { LANGUAGES } from '../../src/config';
import { DOCS_SITE, PROJECT_ROOT, localisedSpec } from '../../src/paths';
import { startService, type TestService } from '../support/app';
import { CHROMIUM, chromiumArgs, requireChromium } from '../support/chromium';

/** A host name the browser resolves to 127.0.0.1: the site as a deployment serves it, not from a loopback origin. */
const SITE_NAME = 'docs.example.test';
const CHROMIUM_ARGS = chromiumArgs([SITE_NAME]);
const OUTPUT = path.join(PROJECT_ROOT, 'test-output');
const SUMMARY_POINTER = '/paths/~1events/get/summary';

/** How the index must label each language: in that language. */
const LABELS: Record<(typeof LANGUAGES)[number], string> = {
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

jest.setTimeout(120_000);

const mtime = (file: string) => (fs.existsSync(file) ? fs.statSync(file).mtimeMs : 0);

/** The site is rebuilt when missing or older than a bundled spec (or than the script that builds it). */
function docsAreStale(): boolean {
  const built = mtime(path.join(DOCS_SITE, 'index.html'));
  if (!built) return true;
  const sources = [path.join(PROJECT_ROOT, 'scripts', 'build-docs.ts'), ...LANGUAGES.map(localisedSpec)];
  return (
    sources.some((file) => mtime(file) > built) ||
    LANGUAGES.some(
      (lang) => fs.existsSync(localisedSpec(lang)) && !fs.existsSync(path.join(DOCS_SITE, lang, 'index.html')),
    )
  );
}

/** The summary of `GET /events` the page in `lang` must show, from the translation file (English: the spec). */
function expectedSummary(lang: string): string {
  if (lang === 'en') return 'List events';
  const file = path.join(PROJECT_ROOT, 'openapi', 'i18n', `${lang}.yaml`);
  if (!fs.existsSync(file))
    throw new Error(
      `the ${lang} translation of the spec is missing: ${path.relative(PROJECT_ROOT, file)} does not exist`,
    );
  const summary = YAML.parse(fs.readFileSync(file, 'utf8'))?.[SUMMARY_POINTER];
  if (typeof summary !== 'string' || !summary.trim())
    throw new Error(`${path.relative(PROJECT_ROOT, file)} has no translation for ${SUMMARY_POINTER}`);
  if (!fs.existsSync(localisedSpec(lang))) {
    throw new Error(
      `${path.relative(PROJECT_ROOT, localisedSpec(lang))} is missing: run \`npm run generate\` (the ${lang} docs are built from it)`,
    );
  }
  return summary.trim();
}

/** The summaries of the operations tagged Events, from the bundle the page in `lang` was built from. */
function eventSummaries(lang: string): string[] {
  const doc = JSON.parse(fs.readFileSync(localisedSpec(lang), 'utf8')) as {
    paths: Record<string, Record<string, { tags?: string[]; summary?: string }>>;
  };
  return Object.values(doc.paths)
    .flatMap((item) => Object.values(item))
    .filter((op) => op && typeof op === 'object' && op.tags?.includes('Events') && op.summary)
    .map((op) => op.summary as string);
}

const exactly = (text: string) => new RegExp(`^\\s*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`);
/** The page's h2 whose text is exactly `text` (its accessible name also holds its deep link's label). */
const heading = (page: Page, text: string) => page.locator('h2').filter({ hasText: exactly(text) });
/** The sidebar entry of an operation, by its summary. */
const menuEntry = (page: Page, text: string) =>
  page
    .locator('[data-component-name="Menu/MenuItem"] [data-text]')
    .filter({ hasText: exactly(text) })
    .first();

/** Whether a request stays on this machine (SITE_NAME is mapped to 127.0.0.1 in the browser). */
const isLoopback = (url: string) => {
  const { protocol, hostname } = new URL(url);
  if (protocol === 'data:' || protocol === 'blob:' || protocol === 'about:') return true;
  return (
    hostname === 'localhost' || hostname === '[::1]' || hostname === SITE_NAME || /^127\.\d+\.\d+\.\d+$/.test(hostname)
  );
};

describe('documentation site in Chromium', () => {
  let service: TestService;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    if (docsAreStale()) {
      execFileSync(path.join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/build-docs.ts'], {
        cwd: PROJECT_ROOT,
        stdio: ['ignore', 'ignore', 'inherit'],
        timeout: 110_000,
      });
    }
    requireChromium();
    fs.mkdirSync(OUTPUT, { recursive: true });
    service = await startService('sqlite');
    base = `http://127.0.0.1:${(service.server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  /** A page that records every request it makes and the script errors it meets; other hosts are refused. */
  async function openPage(): Promise<{ page: Page; external: Request[]; errors: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const external: Request[] = [];
    const errors: string[] = [];
    page.on('request', (request) => {
      if (!isLoopback(request.url())) external.push(request);
    });
    page.on('pageerror', (error) => errors.push(error.message));
    await page.route('**/*', (route) =>
      isLoopback(route.request().url()) ? route.continue() : route.abort('blockedbyclient'),
    );
    return { page, external, errors };
  }

  /** Requests for other hosts that left the browser (the page's own CSP stopping one in the browser is fine). */
  const sent = (requests: Request[]) => requests.filter((r) => r.failure()?.errorText !== 'csp').map((r) => r.url());

  it('redirects /docs to /docs/ and answers an unknown file with the JSON 404', async () => {
    const redirect = await fetch(`${base}/docs`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('/docs/');
    const missing = await fetch(`${base}/docs/nope.html`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'rest_no_route', data: { status: 404 } });
  });

  it('lists every language on the index, each labelled in its own language', async () => {
    const { page, external, errors } = await openPage();
    try {
      const response = await page.goto(`${base}/docs/`);
      expect(response?.status()).toBe(200);
      await expect(page.locator('h1').textContent()).resolves.toBe('Calendar Events REST API');
      const links = await page.locator('nav a').evaluateAll((as) =>
        as.map((a) => ({
          href: a.getAttribute('href'),
          lang: a.getAttribute('lang'),
          label: a.textContent?.trim(),
        })),
      );
      const missing = LANGUAGES.filter((lang) => !links.some((link) => link.href === `${lang}/`));
      if (missing.length) {
        throw new Error(
          `the docs index does not link ${missing.join(', ')}: ` +
            `${missing.map((lang) => path.relative(PROJECT_ROOT, localisedSpec(lang))).join(', ')} not generated yet?`,
        );
      }
      expect(links).toEqual(LANGUAGES.map((lang) => ({ href: `${lang}/`, lang, label: LABELS[lang] })));
      for (const lang of LANGUAGES) {
        const built = await fetch(`${base}/docs/${lang}/`);
        expect([lang, built.status]).toEqual([lang, 200]);
      }
      await page.screenshot({ path: path.join(OUTPUT, 'docs-index.png'), fullPage: true });
      expect(sent(external)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('works over plain HTTP under a host name, as deployed (nothing upgraded to HTTPS)', async () => {
    const { page, external, errors } = await openPage();
    const upgraded: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith('https:')) upgraded.push(request.url());
    });
    try {
      await page.goto(`${base.replace('127.0.0.1', SITE_NAME)}/docs/en/#/events/listevents`);
      if (upgraded.length) {
        throw new Error(
          `the browser upgraded ${upgraded.join(', ')} to HTTPS: the Content-Security-Policy of /docs/ must not ` +
            'carry upgrade-insecure-requests, or a site served over plain HTTP cannot load its Redoc bundle',
        );
      }
      await heading(page, 'List events').waitFor({ state: 'visible', timeout: 30_000 });
      expect(sent(external)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('shows the named examples of a request body and of its answer', async () => {
    const doc = JSON.parse(fs.readFileSync(localisedSpec('en'), 'utf8'));
    const create = doc.paths['/events'].post;
    const example = (ref: string) => doc.components.examples[ref.split('/').pop() as string];
    const bodyRef = create.requestBody.$ref.split('/').pop() as string;
    const requests = Object.values(doc.components.requestBodies[bodyRef].content['application/json'].examples).map(
      (entry) => example((entry as { $ref: string }).$ref),
    );
    const answer = example(create.responses['201'].content['application/json'].examples.EventCreatedResponse.$ref);
    const { page, errors } = await openPage();
    try {
      await page.goto(`${base}/docs/en/#/events/createevent`);
      await heading(page, create.summary).waitFor({ state: 'visible', timeout: 30_000 });
      // the request sample names its example and shows its body; the picker offers the others by their summary
      const picker = page.locator('button[aria-label="Example"]').first();
      await expect(picker.textContent()).resolves.toBe(requests[0].summary);
      await page.getByText(`"${requests[0].value.title}"`).first().waitFor({ state: 'visible', timeout: 10_000 });
      await picker.click();
      await page.getByText(requests[1].summary, { exact: true }).last().click();
      await page.getByText(`"${requests[1].value.title}"`).first().waitFor({ state: 'visible', timeout: 10_000 });
      // the answer's sample is its example
      await page.getByText(`"${answer.value.rest_url}"`).first().waitFor({ state: 'visible', timeout: 10_000 });
      await page.screenshot({ path: path.join(OUTPUT, 'docs-examples.png') });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it.each([...LANGUAGES])('shows the MCP endpoint of this service and no broken image in %s', async (lang) => {
    const { page, external, errors } = await openPage();
    try {
      const site = base.replace('127.0.0.1', SITE_NAME);
      await page.goto(`${site}/docs/${lang}/`);
      // the MCP panel (Redoc's, from the spec's `x-mcp.servers`): the endpoint where this service answers MCP, which
      // its "Connect" buttons hand to an assistant; not the REST namespace, not a `{base_url}` template
      const endpoint = page.locator(`a[href="${site}/mcp"]`);
      await endpoint.waitFor({ state: 'visible', timeout: 30_000 });
      await expect(endpoint.textContent()).resolves.toBe(`${site}/mcp`);
      await expect(page.locator('a[href*="{base_url}"], a[href*="%7Bbase_url%7D"]').count()).resolves.toBe(0);
      const connect = page.getByRole('button', { name: 'Connect to Cursor' });
      await expect(connect.count()).resolves.toBe(1);
      const opened: string[] = [];
      await page.exposeFunction('recordOpen', (url: string) => opened.push(url));
      await page.evaluate('window.open = (url) => { window.recordOpen(String(url)); return null; }');
      await connect.click();
      for (let waited = 0; !opened.length && waited < 10_000; waited += 100) await page.waitForTimeout(100);
      const deeplink = new URL(opened[0]);
      const config = JSON.parse(Buffer.from(deeplink.searchParams.get('config') ?? '', 'base64').toString('utf8'));
      expect(config.url).toBe(`${site}/mcp`);

      // every image has loaded (the sidebar's "API docs by Redocly" logo lived on a CDN the page's policy blocks)
      await page.waitForLoadState('networkidle');
      const images = await page
        .locator('img')
        .evaluateAll((all) =>
          all.map((img) => ({ src: img.getAttribute('src'), width: Reflect.get(img, 'naturalWidth') })),
        );
      expect(images.filter((img) => img.width === 0)).toEqual([]);
      // the attribution keeps the name as text instead
      const attribution = page.locator('a[href="https://redocly.com/redoc/"]');
      await expect(attribution.locator('img').count()).resolves.toBe(0);
      await expect(
        page.evaluate(
          `getComputedStyle(document.querySelector('a[href="https://redocly.com/redoc/"] p'), '::after').content`,
        ),
      ).resolves.toBe('" Redocly"');
      expect(sent(external)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it.each(['en', 'ja', 'nl'])('renders the operations in %s', async (lang) => {
    const summary = expectedSummary(lang);
    const events = eventSummaries(lang);
    const { page, external, errors } = await openPage();
    try {
      const bundle: number[] = [];
      page.on('response', (r) => {
        if (r.url() === `${base}/docs/redoc.standalone.js`) bundle.push(r.status());
      });
      // without the slash: the redirect must land on the page (keeping the fragment). Redoc routes by fragment on
      // the client, so the operation's own heading appears only once the page has hydrated.
      const response = await page.goto(`${base}/docs/${lang}#/events/listevents`);
      expect(response?.status()).toBe(200);
      expect(page.url()).toBe(`${base}/docs/${lang}/#/events/listevents`);
      await expect(page.locator('html').getAttribute('lang')).resolves.toBe(lang);
      await heading(page, summary).waitFor({ state: 'visible', timeout: 30_000 });
      expect(bundle).toEqual([200]);

      // the menu has opened the Events tag: every operation of it, by its summary in this language
      const menu = await page
        .locator('[data-component-name="Menu/MenuItem"] [data-text]')
        .evaluateAll((items) => items.map((item) => item.getAttribute('data-text')));
      expect(menu).toEqual(expect.arrayContaining(events));
      expect(menu).toContain(summary);

      // and following a menu link is client-side routing too
      const other = events.find((text) => text !== summary) as string;
      await menuEntry(page, other).click();
      await heading(page, other).waitFor({ state: 'visible', timeout: 10_000 });
      await menuEntry(page, summary).click();
      await heading(page, summary).waitFor({ state: 'visible', timeout: 10_000 });

      await page.screenshot({ path: path.join(OUTPUT, `docs-${lang}.png`), fullPage: true });
      expect(sent(external)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
