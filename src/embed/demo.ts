/**
 * The demo page at `{base_url}/embed/`: each view of the calendar on this service, under the snippet that puts it
 * on another page. The page's query may set the elements' `date`, `lang` and `poll` (checked, then escaped): a
 * test, or a reader, can pin the calendars to a day.
 */
import { LANGUAGES } from '../config';

export interface DemoInput {
  /** The API root (`src`) as this request reached it. */
  root: string;
  /** `{base_url}/embed/calendar.js` as this request reached it. */
  script: string;
  siteTimezone: string;
  query: Record<string, unknown>;
}

const VIEWS = [
  ['month', 'Month'],
  ['week', 'Week'],
  ['day', 'Day'],
  ['list', 'List (upcoming)'],
] as const;

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** The attributes the page's query may add, each only in its valid form. */
function pinned(query: Record<string, unknown>): [string, string][] {
  const out: [string, string][] = [];
  const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string) : undefined);
  const date = text('date');
  if (date && /^\d{4}-\d{2}-\d{2}$/.test(date)) out.push(['date', date]);
  const lang = text('lang')?.toLowerCase();
  if (lang && (LANGUAGES as readonly string[]).includes(lang)) out.push(['lang', lang]);
  const poll = text('poll');
  if (poll && /^\d{1,4}(\.\d{1,3})?$/.test(poll)) out.push(['poll', poll]);
  return out;
}

export function demoPage({ root, script, siteTimezone, query }: DemoInput): string {
  const extra = pinned(query);
  const lang = extra.find(([name]) => name === 'lang')?.[1] ?? 'en';
  const attributes = (view: string) =>
    [['src', root], ['view', view], ['site-timezone', siteTimezone], ...extra]
      .map(([name, value]) => `${name}="${escapeHtml(value)}"`)
      .join(' ');
  const sections = VIEWS.map(([view, title]) => {
    const element = `<events-calendar ${attributes(view)}></events-calendar>`;
    const snippet = `<script type="module" src="${script}"></script>\n${element}`;
    return `<section aria-labelledby="view-${view}">
  <h2 id="view-${view}">${title}</h2>
  <pre tabindex="0" aria-label="${title}: snippet"><code>${escapeHtml(snippet)}</code></pre>
  <events-calendar ${attributes(view)}></events-calendar>
</section>`;
  }).join('\n');
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Embeddable events calendar</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 72em; margin: 0 auto; padding: 1em 1.5em 3em; color: #1b1b1b; }
pre { background: #f3f4f6; padding: 0.75em 1em; overflow-x: auto; border-radius: 4px; }
section { margin: 2.5em 0; }
dt { font-weight: bold; }
</style>
<script type="module" src="${escapeHtml(script)}"></script>
</head>
<body>
<main>
<h1>Embeddable events calendar</h1>
<p>Put the calendar of this service on any page, on any site: load the script once, then place one
<code>&lt;events-calendar&gt;</code> element per calendar. Each view below shows its snippet.</p>
<dl>
<dt><code>src</code></dt><dd>the API root (required)</dd>
<dt><code>view</code></dt><dd><code>month</code>, <code>week</code>, <code>day</code> or <code>list</code></dd>
<dt><code>lang</code></dt><dd>${LANGUAGES.map((l) => `<code>${l}</code>`).join(', ')}; else the service's default</dd>
<dt><code>categories</code>, <code>tags</code>, <code>venue</code>, <code>organizer</code>, <code>search</code>,
<code>featured</code></dt><dd>the list filters of <code>GET /events</code></dd>
<dt><code>timezone</code>, <code>site-timezone</code></dt><dd><code>site</code> (default) or <code>local</code>;
the site's IANA zone</dd>
<dt><code>date</code>, <code>poll</code></dt><dd>the first day shown (<code>YYYY-MM-DD</code>); seconds between
polls where the change stream is unavailable (30)</dd>
</dl>
${sections}
</main>
</body>
</html>
`;
}
