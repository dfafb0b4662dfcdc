/**
 * What an event write stores (docs/compatibility.md §4.1–4.5): the sent fields turned into column values, each
 * validated and cleaned, with the schedule read in the event's zone, and the links (venue, organizers, categories,
 * tags) resolved.
 */
import type { Knex } from 'knex';
import type { components } from '../../../generated/schema';
import type { Config } from '../../config';
import { utcNow } from '../../db/dialect';
import {
  endOfDay,
  formatLocal,
  formatUtc,
  fromLocal,
  normaliseTimezone,
  parseDateInput,
  startOfDay,
} from '../../domain/dates';
import { parseCost } from '../../domain/cost';
import { sanitizeHtml, sanitizeText } from '../../domain/html';
import { makeSlug } from '../../domain/slugs';
import { invalidParam } from '../../core/errors';
import { isTrue } from '../../core/flags';
import type { Write, Writer } from '../../core/write';
import { checkedAuthor, checkedUrl } from '../posts/fields';
import { resolveImage } from '../images/images';
import type * as posts from '../posts/repository';
import { statusToStore } from '../posts/rules';
import { setPostTerms } from '../terms/repository';
import { CATEGORIES, TAGS } from '../terms/taxonomies';
import { type Inline, organizerIds, termIds, venueId } from './references';
import * as repo from './repository';
import { PLAIN_TEXT_FIELDS } from './fields';
import type { EventFields, EventRow } from './repository';

export type EventWrite = Partial<components['schemas']['EventWrite']> & { password?: string; slug?: string };

export interface ResolvedWrite {
  post: Partial<posts.PostValues>;
  event: Partial<EventFields>;
  /** Base of the slug to store (made unique by the caller); undefined keeps the current one. */
  slugBase?: string;
  /** Writes terms and organizers once the event id exists. */
  links(trx: Knex.Transaction, id: number): Promise<void>;
}

/**
 * Turns the sent fields into column values, validating each, and creates in the write what they name that does not
 * exist yet (a venue, organizers, categories and tags named inline); `current` is the stored event on update.
 */
export async function resolveEventWrite(
  w: Write,
  config: Readonly<Config>,
  { caller, language }: Writer,
  body: EventWrite,
  current: EventRow | undefined,
): Promise<ResolvedWrite> {
  const { trx } = w;
  const post: Partial<posts.PostValues> = {};
  const event: Partial<EventFields> = {};
  const now = utcNow();

  if (body.title !== undefined) post.title = required('title', sanitizeText(body.title));
  if (body.description !== undefined) post.content = required('description', sanitizeHtml(body.description));
  if (body.excerpt !== undefined) post.excerpt = required('excerpt', sanitizeHtml(body.excerpt));
  if (body.password !== undefined) post.password = body.password;
  if (body.author !== undefined) post.author_id = await checkedAuthor(trx, caller, 'events', body.author);

  const zone =
    body.timezone === undefined
      ? (current?.timezone ?? config.siteTimezone)
      : body.timezone === ''
        ? config.siteTimezone
        : normaliseTimezone(body.timezone);
  if (!zone) throw invalidParam('timezone', 'timezone_invalid');
  Object.assign(event, schedule(body, zone, current));

  if (body.date !== undefined) post.date_utc = formatUtc(parsed('date', body.date, zone));
  if (body.date_utc !== undefined) post.date_utc = formatUtc(parsed('date_utc', body.date_utc, 'UTC'));
  if (!current) post.date_utc ??= now;
  if (!current || body.status !== undefined || post.date_utc !== undefined) {
    post.status = statusToStore(
      caller,
      'events',
      body.status,
      current?.status,
      post.date_utc ?? current?.date_utc ?? now,
      now,
    );
    event.status = post.status;
  }

  if (body.cost !== undefined) {
    const cost = parseCost(body.cost);
    const entries = cost.entries.map(sanitizeText).filter(Boolean);
    Object.assign(event, {
      cost: entries.length ? JSON.stringify(entries) : null,
      currency_symbol: cost.symbol,
      currency_position: cost.position,
    });
  }
  if (body.website !== undefined) event.website = checkedUrl('website', body.website);
  Object.assign(event, plainTexts(body));
  if (body.image !== undefined) event.image_id = await resolveImage(trx, body.image, caller);
  for (const flag of ['show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured'] as const) {
    if (body[flag] !== undefined) event[flag] = isTrue(body[flag]);
  }
  if (!current) {
    Object.assign(event, { show_map: event.show_map ?? true, show_map_link: event.show_map_link ?? true });
    Object.assign(event, {
      hide_from_listings: event.hide_from_listings ?? false,
      sticky: event.sticky ?? false,
      featured: event.featured ?? false,
    });
    Object.assign(event, {
      currency_symbol: event.currency_symbol ?? '',
      currency_position: event.currency_position ?? '',
      cost: event.cost ?? null,
    });
    Object.assign(event, { website: event.website ?? null, image_id: event.image_id ?? null, post_parent: null });
  }
  const inline: Inline = { w, config, writer: { caller, language } };
  if (body.venue !== undefined) event.venue_id = await venueId(inline, body.venue);
  else if (!current) event.venue_id = null;
  const organizers = body.organizer === undefined ? undefined : await organizerIds(inline, body.organizer);
  const categories = body.categories === undefined ? undefined : await termIds(inline, CATEGORIES, body.categories);
  const tags = body.tags === undefined ? undefined : await termIds(inline, TAGS, body.tags);

  const slugSource = body.slug ?? (current ? undefined : post.title);
  const slugBase = slugSource === undefined ? undefined : makeSlug(slugSource) || undefined;
  if (body.slug !== undefined && !slugBase) throw invalidParam('slug', 'slug_empty');
  return {
    post,
    event,
    slugBase,
    async links(t, id) {
      if (organizers) await repo.setOrganizers(t, id, organizers);
      if (categories) await setPostTerms(t, id, 'tribe_events_cat', categories);
      if (tags) await setPostTerms(t, id, 'post_tag', tags);
    },
  };
}

/** The plain text fields of the field table that the body sends, as their columns. */
function plainTexts(body: EventWrite): Record<string, string> {
  const sent = body as Record<string, unknown>;
  return Object.fromEntries(
    PLAIN_TEXT_FIELDS.filter(({ wire }) => sent[wire] !== undefined).map(({ column, wire }) => [
      column,
      sanitizeText(String(sent[wire])),
    ]),
  );
}

/**
 * Start, end, time zone and all-day (docs/compatibility.md §4.3): dates are read in the event's zone, all-day events
 * span 00:00:00–23:59:59 of their days, an end before the start is 400 naming `end_date`. A new zone keeps the stored
 * local times.
 */
function schedule(body: EventWrite, zone: string, current: EventRow | undefined): Partial<EventFields> | undefined {
  const touched = ['start_date', 'end_date', 'all_day', 'timezone'].some(
    (key) => body[key as keyof EventWrite] !== undefined,
  );
  if (current && !touched) return undefined;
  let start =
    body.start_date !== undefined
      ? parsed('start_date', body.start_date, zone)
      : fromLocal((current as EventRow).start_local, zone);
  let end =
    body.end_date !== undefined
      ? parsed('end_date', body.end_date, zone)
      : fromLocal((current as EventRow).end_local, zone);
  const allDay = body.all_day !== undefined ? isTrue(body.all_day) : (current?.all_day ?? false);
  if (allDay) {
    start = startOfDay(start, zone);
    end = endOfDay(end, zone);
  }
  if (end < start) throw invalidParam('end_date', 'end_before_start');
  return {
    timezone: zone,
    all_day: allDay,
    start_local: formatLocal(start, zone),
    end_local: formatLocal(end, zone),
    start_utc: formatUtc(start),
    end_utc: formatUtc(end),
  };
}

function parsed(name: string, input: string | number, zone: string) {
  const instant = parseDateInput(input, zone);
  if (!instant) throw invalidParam(name, 'date_invalid');
  return instant;
}

function required(name: string, text: string): string {
  if (!text) throw invalidParam(name, 'param_min_length', { limit: 1 });
  return text;
}
