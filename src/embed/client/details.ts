/**
 * An event's details, built with DOM calls: every text from the API is set as text, and the description (HTML the
 * service has sanitised once already) is sanitised again by DOMPurify before it enters the page, with no script,
 * form, frame or inline style kept and every link opening apart. Links from data are followed only when they are
 * http(s) URLs.
 */
import DOMPurify, { type Config } from 'dompurify';
import type { ApiEvent, ApiOrganizer, ApiVenue } from './api';
import type { Messages } from './messages';
import { parseUtc } from './zones';

/**
 * The text of a piece of HTML (titles may carry entities or tags): parsed in an inert document, never in the page,
 * without what scripts, styles and templates hold.
 */
export function htmlToText(html: string | null | undefined): string {
  if (!html) return '';
  const body = new DOMParser().parseFromString(html, 'text/html').body;
  for (const node of body.querySelectorAll('script, style, template, noscript')) node.remove();
  return body.textContent?.replace(/\s+/g, ' ').trim() ?? '';
}

/** `url` when it is an absolute http(s) URL, else undefined. */
export function safeUrl(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

const PURIFY: Config & { RETURN_DOM_FRAGMENT: true } = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed', 'svg', 'math'],
  FORBID_ATTR: ['style', 'id', 'name', 'class'],
  RETURN_DOM_FRAGMENT: true,
};

/** The description as a fragment of sanitised nodes; links open in a new browsing context without an opener. */
export function descriptionFragment(html: string): DocumentFragment {
  const fragment = DOMPurify.sanitize(html, PURIFY);
  for (const link of fragment.querySelectorAll('a')) {
    const href = safeUrl(link.getAttribute('href'));
    if (href) {
      link.setAttribute('href', href);
      link.setAttribute('target', '_blank');
      link.setAttribute('rel', 'noopener noreferrer nofollow');
    } else link.removeAttribute('href');
  }
  for (const image of fragment.querySelectorAll('img')) {
    if (!safeUrl(image.getAttribute('src'))) image.remove();
    else image.setAttribute('referrerpolicy', 'no-referrer');
  }
  return fragment;
}

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<Record<'className' | 'textContent', string>> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.className) node.className = props.className;
  if (props.textContent !== undefined) node.textContent = props.textContent;
  node.append(...children);
  return node;
}

function link(href: string, text: string, download = false): HTMLAnchorElement {
  const a = el('a', { textContent: text });
  a.href = href;
  a.target = '_blank';
  a.rel = 'noopener noreferrer';
  if (download) a.setAttribute('download', '');
  return a;
}

/** When the event takes place, in `zone` (all-day events by their own dates, which no zone moves). */
export function whenText(event: ApiEvent, zone: string, locale: string, t: Messages): string {
  if (event.all_day) {
    const days = new Intl.DateTimeFormat(locale, { dateStyle: 'full', timeZone: 'UTC' });
    const start = Date.parse(`${event.start_date.slice(0, 10)}T00:00:00Z`);
    const end = Date.parse(`${event.end_date.slice(0, 10)}T00:00:00Z`);
    const range = end > start ? days.formatRange(start, end) : days.format(start);
    return `${range} · ${t.allDay}`;
  }
  const times = new Intl.DateTimeFormat(locale, { dateStyle: 'full', timeStyle: 'short', timeZone: zone });
  return `${times.formatRange(parseUtc(event.utc_start_date), parseUtc(event.utc_end_date))} (${zone})`;
}

function venueOf(event: ApiEvent): ApiVenue | undefined {
  const venue = event.venue as ApiVenue | unknown[] | undefined;
  return venue && !Array.isArray(venue) && typeof venue === 'object' ? venue : undefined;
}

/** A map link for a venue: its coordinates when it has them, else a search for its address. */
function mapUrl(venue: ApiVenue): string | undefined {
  const lat = Number(venue.geo_lat);
  const lng = Number(venue.geo_lng);
  if (venue.geo_lat != null && venue.geo_lng != null && Number.isFinite(lat) && Number.isFinite(lng))
    return `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lng}#map=17/${lat}/${lng}`;
  const address = [venue.venue, venue.address, venue.zip, venue.city, venue.country].filter(Boolean).join(', ');
  return address ? `https://www.openstreetmap.org/search?query=${encodeURIComponent(address)}` : undefined;
}

export interface DetailsInput {
  event: ApiEvent;
  zone: string;
  locale: string;
  t: Messages;
  icalUrl: string;
  titleId: string;
}

/** The dialog's content: title, when, where (with a map link), organizers, cost, description and links. */
export function detailsContent({ event, zone, locale, t, icalUrl, titleId }: DetailsInput): DocumentFragment {
  const out = document.createDocumentFragment();
  const title = el('h2', { textContent: htmlToText(event.title) });
  title.id = titleId;
  out.append(title);
  const facts = el('dl');
  const fact = (label: string, ...value: (Node | string)[]) =>
    facts.append(el('dt', { textContent: label }), el('dd', {}, ...value));
  fact(t.when, whenText(event, zone, locale, t));
  const venue = venueOf(event);
  if (venue) {
    const lines = [
      htmlToText(venue.venue),
      venue.address,
      [venue.zip, venue.city].filter(Boolean).join(' '),
      venue.country,
    ]
      .filter((line): line is string => Boolean(line?.trim()))
      .map((line) => el('span', { className: 'line', textContent: line }));
    const map = venue.show_map_link !== false ? mapUrl(venue) : undefined;
    fact(t.where, ...lines, ...(map ? [link(map, t.map)] : []));
  }
  const organizers = (Array.isArray(event.organizer) ? event.organizer : []) as ApiOrganizer[];
  if (organizers.length) {
    const list = el('ul');
    for (const organizer of organizers) {
      const name = htmlToText(organizer.organizer);
      const site = safeUrl(organizer.website);
      list.append(el('li', {}, site ? link(site, name) : name));
    }
    fact(t.organizers, list);
  }
  if (event.cost?.trim()) fact(t.cost, htmlToText(event.cost));
  out.append(facts);
  if (event.description?.trim())
    out.append(el('div', { className: 'description' }, descriptionFragment(event.description)));
  const links = el('p', { className: 'links' });
  const page = safeUrl(event.url);
  if (page) links.append(link(page, t.eventPage));
  links.append(link(icalUrl, t.addToCalendar, true));
  out.append(links);
  return out;
}
