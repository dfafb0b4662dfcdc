/**
 * The embeddable calendar in a real browser (D140): headless Chromium (Debian's `chromium`, or CHROMIUM_PATH) through
 * playwright-core, against the running service under host names mapped to 127.0.0.1. Events are made through the
 * API; the demo page at `/embed/` shows the four views, pinned to the test's day (`?date=`), so nothing here reads
 * the wall clock. It checks what each view shows (an all-day and a multi-day event among them), view switching and
 * details by keyboard, axe-core on every view, a hostile description and title rendered as text, a change made
 * through the API shown within 2 s without a reload, the language fallback, the time-zone toggle, and a page of
 * another origin embedding the calendar without sending it a cookie. Screenshots go to test-output/.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page, type Request } from 'playwright-core';
import request from 'supertest';
import { PROJECT_ROOT } from '../../src/paths';
import { NS, startService, type TestService } from '../support/app';
import { embedBuild, publishEvent } from '../support/embed';
import { CHROMIUM, chromiumArgs, requireChromium } from '../support/chromium';

/** The service, and a site of another origin that embeds it. */
const SERVICE_HOST = 'events.example.test';
const BLOG_HOST = 'blog.example.test';
const CHROMIUM_ARGS = chromiumArgs([SERVICE_HOST, BLOG_HOST]);
const OUTPUT = path.join(PROJECT_ROOT, 'test-output');
const DAY = '2027-06-15';
const VIEWS = ['month', 'week', 'day', 'list'] as const;
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

jest.setTimeout(180_000);

// what the callbacks run in the page see (this project type-checks for Node, without the DOM's types)
declare const document: any;
declare const window: any;
declare function getComputedStyle(element: unknown): { outlineStyle: string };
type ShadowRoot = any;

const isLocal = (url: string) => {
  const { protocol, hostname } = new URL(url);
  if (['data:', 'blob:', 'about:'].includes(protocol)) return true;
  return [SERVICE_HOST, BLOG_HOST, '127.0.0.1', 'localhost'].includes(hostname);
};

/** The calendar of a view on the demo page (Playwright's CSS reaches into the element's open shadow root). */
const calendar = (page: Page, view: string) => page.locator(`events-calendar[view="${view}"]`);
const eventIn = (page: Page, view: string, title: string) =>
  calendar(page, view).locator('.fc-event', { hasText: title }).first();

/** The class of the element focused inside the calendar of `view`. */
const focusedClass = (page: Page, view: string) =>
  page.evaluate(
    (v) => document.querySelector(`events-calendar[view="${v}"]`)?.shadowRoot?.activeElement?.className ?? '',
    view,
  );

describe('embeddable calendar in Chromium', () => {
  let service: TestService;
  let browser: Browser;
  let port: number;
  let blog: http.Server;
  let blogPort: number;
  let site: string;
  let root: string;
  const ids: Record<string, number> = {};

  const create = (body: Record<string, unknown>) => publishEvent(service, body);

  beforeAll(async () => {
    embedBuild();
    requireChromium();
    fs.mkdirSync(OUTPUT, { recursive: true });
    // the service answers in Dutch unless asked otherwise: the element falls back to it as the API does
    service = await startService('sqlite', { SITE_TIMEZONE: 'Europe/Amsterdam', DEFAULT_LANGUAGE: 'nl' });
    port = (service.server.address() as AddressInfo).port;
    site = `http://${SERVICE_HOST}:${port}`;
    root = `${site}${NS}`;
    ids.concert = await create({
      title: 'Harbour Concert',
      start_date: `${DAY} 19:00:00`,
      end_date: `${DAY} 21:00:00`,
      venue: { venue: 'Harbour Stage', address: 'Kade 1', city: 'Utrecht', country: 'Netherlands' },
      organizer: [{ organizer: 'Utrecht Music Club', website: 'https://music.example.net' }],
      cost: '€12',
      description: '<p>Brass and <strong>strings</strong> on the quay.</p>',
    });
    ids.market = await create({
      title: 'Market Day',
      all_day: true,
      start_date: '2027-06-16 00:00:00',
      end_date: '2027-06-16 23:59:59',
    });
    ids.festival = await create({
      title: 'Summer Festival',
      start_date: '2027-06-14 10:00:00',
      end_date: '2027-06-17 18:00:00',
    });
    ids.tricky = await create({
      title: 'Tricky Talk',
      start_date: '2027-06-17 14:00:00',
      end_date: '2027-06-17 15:00:00',
      description: '<p>Plain words.</p>',
    });
    blog = http.createServer((req, res) => {
      const asked = new URL(req.url ?? '/', 'http://blog').searchParams;
      const view = asked.get('view') ?? 'list';
      const date = asked.get('date') ?? DAY;
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(
        '<!doctype html><html lang="en"><title>A blog</title><h1>Our events</h1>' +
          `<script type="module" src="${site}/embed/calendar.js"></script>` +
          `<events-calendar src="${root}" view="${view}" lang="en" date="${date}" poll="5"></events-calendar>`,
      );
    });
    await new Promise<void>((resolve) => blog.listen(0, '127.0.0.1', resolve));
    blogPort = (blog.address() as AddressInfo).port;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => blog?.close(resolve));
    await service?.close();
  });

  /** A page in a context of its own (the viewer in New York), with other hosts refused and errors recorded. */
  async function openPage(options: { bypassCSP?: boolean } = {}) {
    const context: BrowserContext = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      timezoneId: 'America/New_York',
      locale: 'en-US',
      ...options,
    });
    const page = await context.newPage();
    const errors: string[] = [];
    const external: string[] = [];
    const api: Request[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    if (process.env.EMBED_DEBUG) page.on('console', (m) => process.stdout.write(`console: ${m.text()}\n`));
    if (process.env.EMBED_DEBUG)
      page.on('requestfailed', (r) => process.stdout.write(`failed: ${r.url()} ${r.failure()?.errorText}\n`));
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text()))
        errors.push(`${message.text()} at ${JSON.stringify(message.location())}`);
    });
    page.on('request', (r) => {
      if (r.url().includes(NS)) api.push(r);
    });
    await context.route('**/*', (route) => {
      if (isLocal(route.request().url())) return route.continue();
      external.push(route.request().url());
      return route.abort('blockedbyclient');
    });
    return { context, page, errors, external, api };
  }

  const demo = (query = `date=${DAY}&lang=en&poll=0.5`) => `${site}/embed/?${query}`;

  async function waitForViews(page: Page, title = 'Harbour Concert') {
    for (const view of VIEWS) await eventIn(page, view, title).waitFor({ state: 'visible', timeout: 30_000 });
  }

  it('shows the events in each view, the all-day and the multi-day one where they belong', async () => {
    const { context, page, errors, external } = await openPage();
    try {
      const response = await page.goto(demo());
      expect(response?.status()).toBe(200);
      await waitForViews(page);

      // month: the all-day event in its day's cell, the multi-day one as one bar across its four days
      const month = calendar(page, 'month');
      await expect(
        month.locator('td[data-date="2027-06-16"] .fc-event', { hasText: 'Market Day' }).count(),
      ).resolves.toBe(1);
      const bar = month.locator('.fc-event', { hasText: 'Summer Festival' });
      await expect(bar.count()).resolves.toBe(1);
      const cell = await month.locator('td[data-date="2027-06-14"]').boundingBox();
      const barBox = await bar.boundingBox();
      expect(barBox!.width).toBeGreaterThan(3 * cell!.width);
      await expect(
        month.locator('td[data-date="2027-06-15"] .fc-event', { hasText: 'Harbour Concert' }).count(),
      ).resolves.toBe(1);

      // week: the all-day event in the all-day row, the timed ones in the grid; the festival on each of its days
      const week = calendar(page, 'week');
      await expect(week.locator('.fc-daygrid-body .fc-event', { hasText: 'Market Day' }).count()).resolves.toBe(1);
      await expect(week.locator('.fc-timegrid-event', { hasText: 'Harbour Concert' }).count()).resolves.toBe(1);
      await expect(week.locator('.fc-timegrid-event', { hasText: 'Summer Festival' }).count()).resolves.toBe(4);
      // in the site's zone (Europe/Amsterdam), though the viewer is in New York
      await expect(week.locator('.fc-timegrid-event', { hasText: 'Harbour Concert' }).textContent()).resolves.toContain(
        '7:00',
      );

      // day: the 15th, with the festival's middle day and the concert, not the market of the 16th
      const day = calendar(page, 'day');
      await expect(day.locator('.fc-event', { hasText: 'Summer Festival' }).count()).resolves.toBe(1);
      await expect(day.locator('.fc-event', { hasText: 'Market Day' }).count()).resolves.toBe(0);

      // list: upcoming from the 15th, the all-day event labelled so, the festival on each day it runs from then
      const list = calendar(page, 'list');
      await expect(list.locator('.fc-list-event', { hasText: 'Market Day' }).textContent()).resolves.toContain(
        'all-day',
      );
      await expect(list.locator('.fc-list-event', { hasText: 'Summer Festival' }).count()).resolves.toBe(3);
      await expect(list.locator('.fc-list-event', { hasText: 'Tricky Talk' }).count()).resolves.toBe(1);

      // the subscribe link is the iCalendar feed of the same filters
      await expect(calendar(page, 'month').locator('a.subscribe').getAttribute('href')).resolves.toBe(
        `${root}/events/ical?i18n_language=en`,
      );
      await page.screenshot({ path: path.join(OUTPUT, 'embed-demo.png'), fullPage: true });
      expect(errors).toEqual([]);
      expect(external).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('switches views and opens details by keyboard, with a visible focus; the details say it all', async () => {
    const { context, page, errors } = await openPage();
    try {
      await page.goto(demo());
      await waitForViews(page);
      const month = calendar(page, 'month');
      await month.locator('.fc-dayGridMonth-button').focus();
      await page.keyboard.press('Tab');
      await expect(focusedClass(page, 'month')).resolves.toContain('fc-timeGridWeek-button');
      const outline = await month
        .locator('.fc-timeGridWeek-button')
        .evaluate((button) => getComputedStyle(button).outlineStyle);
      expect(outline).toBe('solid');
      await page.keyboard.press('Enter');
      await month.locator('.fc-timeGridWeek-view').waitFor({ state: 'visible' });
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await month.locator('.fc-timeGridDay-view').waitFor({ state: 'visible' });
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await month.locator('.fc-list').waitFor({ state: 'visible' });
      // the list's events arrive by a fetch of their own: tabbing before they are shown would pass them by
      await month.locator('.fc-list .fc-event', { hasText: 'Harbour Concert' }).first().waitFor({ state: 'visible' });

      // Tab on to the concert in the list, then Enter opens its details
      let focused = '';
      for (let i = 0; i < 40 && !focused.includes('Harbour Concert'); i++) {
        await page.keyboard.press('Tab');
        focused = await page.evaluate(
          () => document.querySelector('events-calendar[view="month"]')?.shadowRoot?.activeElement?.textContent ?? '',
        );
      }
      expect(focused).toContain('Harbour Concert');
      await page.keyboard.press('Enter');
      const dialog = month.locator('dialog[open]');
      await dialog.waitFor({ state: 'visible' });
      await expect(dialog.locator('h2').textContent()).resolves.toBe('Harbour Concert');
      const text = (await dialog.textContent()) ?? '';
      expect(text).toContain('7:00'); // 19:00 in Amsterdam, the site's zone
      expect(text).toContain('Europe/Amsterdam');
      expect(text).toContain('Harbour Stage');
      expect(text).toContain('Utrecht Music Club');
      expect(text).toContain('€12');
      await expect(dialog.locator('.description strong').textContent()).resolves.toBe('strings');
      const links = await dialog
        .locator('a')
        .evaluateAll((as) => as.map((a) => ({ text: a.textContent, href: a.getAttribute('href') })));
      expect(links).toEqual(
        expect.arrayContaining([
          { text: 'Map', href: expect.stringMatching(/^https:\/\/www\.openstreetmap\.org\/search\?query=Harbour/) },
          { text: 'Utrecht Music Club', href: 'https://music.example.net/' },
          { text: 'Event page', href: expect.stringMatching(/^http:\/\//) },
          { text: 'Add to calendar', href: `${root}/events/ical/${ids.concert}?i18n_language=en` },
        ]),
      );
      const ical = await page.evaluate((url) => fetch(url).then((r) => r.text()), `${root}/events/ical/${ids.concert}`);
      expect(ical).toMatch(/^SUMMARY[^:\r\n]*:Harbour Concert\r$/m);
      await page.screenshot({ path: path.join(OUTPUT, 'embed-details.png') });
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      const focusedText = await page.evaluate(
        () => document.querySelector('events-calendar[view="month"]')?.shadowRoot?.activeElement?.textContent ?? '',
      );
      expect(focusedText).toContain('Harbour Concert'); // focus is back where it was
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('has no serious or critical accessibility violation in any view, nor in the details', async () => {
    const { context, page } = await openPage();
    try {
      await page.goto(demo());
      await waitForViews(page);
      await page.evaluate(AXE); // evaluated by the browser's debugger, which the page's policy does not govern
      const check = async (label: string) => {
        const violations = await page.evaluate(async () => {
          const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
          return result.violations
            .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
            .map(
              (v: any) =>
                `${v.id} (${v.impact}): ` +
                v.nodes.map((n: any) => `${n.target.join(' ')} ${n.html} ${n.failureSummary}`).join(', '),
            );
        });
        expect([label, violations]).toEqual([label, []]);
      };
      await check('the four views');
      // each calendar in the next view, so every view is checked in each element
      const all = page.locator('events-calendar');
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < VIEWS.length; i++)
          await all.nth(i).evaluate((el, v) => el.setAttribute('view', v), VIEWS[(i + round + 1) % VIEWS.length]);
        await all.nth(0).locator('.fc-event', { hasText: 'Harbour Concert' }).first().waitFor({ state: 'visible' });
        await check(`round ${round + 1} of switched views`);
      }
      await all.nth(0).locator('.fc-event', { hasText: 'Harbour Concert' }).first().click();
      await all.nth(0).locator('dialog[open]').waitFor({ state: 'visible' });
      await check('the details dialog');
    } finally {
      await context.close();
    }
  });

  /** A page of another origin (its own server, no Content-Security-Policy) embedding the calendar of `view`. */
  async function blogPage(page: Page, view: string, date = DAY) {
    await page.goto(`http://${BLOG_HOST}:${blogPort}/post.html?view=${view}&date=${date}`);
  }

  it('renders a hostile title and description as text in every view: nothing runs', async () => {
    const { context, page, errors } = await openPage();
    try {
      // what a compromised or careless server could answer: the element must not trust the API's sanitising
      await page.route(`**${NS}/events?*`, async (route) => {
        // Node resolves the mapped host name itself: ask the service at its address
        const response = await route.fetch({ url: route.request().url().replace(SERVICE_HOST, '127.0.0.1') });
        const body = await response.json();
        for (const event of body.events) {
          if (event.id !== ids.tricky) continue;
          event.title = 'Tricky <img src=x onerror="window.__xss=1">Talk<script>window.__xss=2</script>';
          event.description =
            '<p>Before</p><img src=x onerror="window.__xss=3"><script>window.__xss=4</script>' +
            '<a href="javascript:window.__xss=5">link</a><iframe src="javascript:window.__xss=6"></iframe><p>After</p>';
        }
        await route.fulfill({ response, json: body });
      });
      await blogPage(page, 'list');
      const list = calendar(page, 'list');
      const talk = list.locator('.fc-list-event', { hasText: 'Tricky Talk' });
      await talk.waitFor({ state: 'visible', timeout: 30_000 });
      await talk.locator('.fc-list-event-title').click();
      const dialog = list.locator('dialog[open]');
      await dialog.waitFor({ state: 'visible' });
      await expect(dialog.locator('h2').textContent()).resolves.toBe('Tricky Talk');
      await expect(dialog.locator('.description').textContent()).resolves.toBe('BeforelinkAfter');
      const hostile = await list.evaluate((el) => {
        const shadow = el.shadowRoot as ShadowRoot;
        return {
          scripts: shadow.querySelectorAll('script, iframe').length,
          handlers: [...shadow.querySelectorAll('*')].filter((n: any) =>
            [...n.attributes].some((a: any) => /^on/i.test(a.name)),
          ).length,
          javascriptLinks: [...shadow.querySelectorAll('a')].filter((a: any) => /^javascript:/i.test(a.href)).length,
        };
      });
      expect(hostile).toEqual({ scripts: 0, handlers: 0, javascriptLinks: 0 });
      await dialog.locator('.description a').click();
      await page.waitForTimeout(500);
      await expect(page.evaluate(() => (window as any).__xss)).resolves.toBeUndefined();
      // the other views draw the title too (the day view on the talk's own day): as text there as well
      for (const view of ['month', 'week', 'day']) {
        await blogPage(page, view, view === 'day' ? '2027-06-17' : DAY);
        const drawn = calendar(page, view).locator('.fc-event', { hasText: 'Tricky Talk' }).first();
        await drawn.waitFor({ state: 'visible', timeout: 30_000 });
        const inView = await calendar(page, view).evaluate((el) => {
          const shadow = el.shadowRoot as ShadowRoot;
          return {
            scripts: shadow.querySelectorAll('script, iframe, img[onerror]').length,
            handlers: [...shadow.querySelectorAll('*')].filter((n: any) =>
              [...n.attributes].some((a: any) => /^on/i.test(a.name)),
            ).length,
          };
        });
        expect([view, inView]).toEqual([view, { scripts: 0, handlers: 0 }]);
      }
      await expect(page.evaluate(() => (window as any).__xss)).resolves.toBeUndefined();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows a change made through the API within 2 s, without a reload', async () => {
    const { context, page, errors } = await openPage();
    try {
      await page.goto(demo());
      await waitForViews(page);
      await page.evaluate(() => Object.assign(window, { __sameDocument: true }));
      const mode = await calendar(page, 'month').getAttribute('data-live');
      expect(['stream', 'poll']).toContain(mode);

      const added = Date.now();
      ids.popup = await create({ title: 'Pop-up Talk', start_date: `${DAY} 15:00:00`, end_date: `${DAY} 16:00:00` });
      await eventIn(page, 'month', 'Pop-up Talk').waitFor({ state: 'visible', timeout: 2_000 });
      const seen = Date.now() - added;

      const renamed = await request(service.app)
        .patch(`${NS}/events/${ids.concert}`)
        .auth(...service.as('editor'))
        .send({ title: 'Harbour Concert (moved indoors)' });
      expect(renamed.status).toBe(200);
      await eventIn(page, 'week', 'moved indoors').waitFor({ state: 'visible', timeout: 2_000 });
      await request(service.app)
        .patch(`${NS}/events/${ids.concert}`)
        .auth(...service.as('editor'))
        .send({ title: 'Harbour Concert' });

      await expect(page.evaluate(() => (window as any).__sameDocument)).resolves.toBe(true);
      process.stdout.write(`embed: a new event shown ${seen} ms after its create (${mode})\n`);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("follows the service's own change stream within 2 s, with no poll to help", async () => {
    const { context, page, errors } = await openPage();
    try {
      await page.goto(demo(`date=${DAY}&lang=en&poll=600`));
      await waitForViews(page);
      await expect(calendar(page, 'month').getAttribute('data-live')).resolves.toBe('stream');
      const added = Date.now();
      ids.streamed = await create({
        title: 'Streamed Recital',
        start_date: `${DAY} 17:00:00`,
        end_date: `${DAY} 18:00:00`,
      });
      await eventIn(page, 'month', 'Streamed Recital').waitFor({ state: 'visible', timeout: 2_000 });
      process.stdout.write(`embed: a new event shown ${Date.now() - added} ms after its create (stream only)\n`);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('refetches on a message of the change stream, with no poll to help', async () => {
    const { context, page, errors } = await openPage();
    try {
      // the stream as the service answers it: held open until the test has made its change, then one message; a
      // reconnection after it is held for good. Polls come every 10 minutes: only the stream can show the change.
      let message: string | undefined;
      const waiting: Array<() => void> = [];
      await page.route(`**${NS}/changes/stream`, async (route) => {
        if (message) return; // a reconnection: left pending
        await new Promise<void>((resolve) => waiting.push(resolve));
        await route.fulfill({
          status: 200,
          headers: {
            'Content-Type': 'text/event-stream',
            'Cache-Control': 'no-store',
            'Access-Control-Allow-Origin': '*',
          },
          body: message,
        });
      });
      await page.goto(demo(`date=${DAY}&lang=en&poll=600`));
      await waitForViews(page);
      const id = await create({ title: 'Stream Talk', start_date: `${DAY} 10:00:00`, end_date: `${DAY} 11:00:00` });
      const entry = { cursor: '1', resource: 'event', id, action: 'created', modified_utc: '2027-06-15 12:00:00' };
      message = `id: 1\ndata: ${JSON.stringify(entry)}\n\n`;
      for (const release of waiting.splice(0)) release();
      for (const view of VIEWS) await eventIn(page, view, 'Stream Talk').waitFor({ state: 'visible', timeout: 2_000 });
      await expect(calendar(page, 'month').getAttribute('data-live')).resolves.toBe('stream');
      await request(service.app)
        .delete(`${NS}/events/${id}`)
        .auth(...service.as('editor'))
        .query({ force: true });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("speaks the service's default language when `lang` names none, and the one it names otherwise", async () => {
    const { context, page } = await openPage();
    try {
      await page.goto(demo(`date=${DAY}&poll=5`));
      await waitForViews(page);
      const month = calendar(page, 'month');
      await expect(month.locator('a.subscribe').textContent()).resolves.toBe('Abonneren (iCalendar)');
      await expect(month.locator('.fc-today-button').textContent()).resolves.toBe('Vandaag');
      await page.goto(demo(`date=${DAY}&poll=5&lang=ja`));
      await waitForViews(page);
      await expect(month.locator('a.subscribe').textContent()).resolves.toBe('購読 (iCalendar)');
      await expect(month.locator('.fc-today-button').textContent()).resolves.toBe('今日');
      await expect(month.locator('.fc-listUpcoming-button').textContent()).resolves.toBe('リスト');
    } finally {
      await context.close();
    }
  });

  it("shows times in the site's zone or, toggled, in the viewer's", async () => {
    const { context, page } = await openPage();
    try {
      await page.goto(demo());
      await waitForViews(page);
      const day = calendar(page, 'day');
      const concert = day.locator('.fc-timegrid-event', { hasText: 'Harbour Concert' });
      await expect(day.locator('.zone-label').textContent()).resolves.toBe('Times in Europe/Amsterdam');
      await expect(concert.textContent()).resolves.toContain('7:00 - 9:00');
      await day.locator('button.zone').click();
      await expect(day.locator('.zone-label').textContent()).resolves.toBe('Times in America/New_York');
      await expect(day.locator('button.zone').getAttribute('aria-pressed')).resolves.toBe('true');
      await day.locator('.fc-timegrid-event', { hasText: '1:00 - 3:00' }).waitFor({ state: 'visible' });
    } finally {
      await context.close();
    }
  });

  it('runs on a page of another origin, sending the service no cookie', async () => {
    const { context, page, errors, api } = await openPage();
    try {
      await context.addCookies([{ name: 'session', value: 'secret', domain: SERVICE_HOST, path: '/' }]);
      await blogPage(page, 'list');
      await eventIn(page, 'list', 'Harbour Concert').waitFor({ state: 'visible', timeout: 30_000 });
      expect(api.length).toBeGreaterThan(0);
      for (const r of api) expect([r.url(), (await r.allHeaders()).cookie]).toEqual([r.url(), undefined]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
