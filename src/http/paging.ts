/**
 * Paging shared by the five lists: `page`/`per_page` (capped at 50), the envelope with `rest_url`,
 * `next_rest_url`, `previous_rest_url`, `total`, `total_pages`, and the X-TEC-*, X-WP-* and Link headers.
 */
import type { Response } from 'express';
import type { components } from '../../generated/schema';
import type { Operation } from './spec';
import { restRoot, type RequestLike } from './urls';
import { ApiError } from '../core/errors';
import { sendJsonBytes, spliceArray } from './json-bytes';
import { isSecretName } from './request-log';

export const MAX_PER_PAGE = 50;

export interface Paging {
  page: number;
  perPage: number;
  offset: number;
}

export function paging(query: { page?: number; per_page?: number }): Paging {
  const page = query.page ?? 1;
  const perPage = Math.min(query.per_page ?? 15, MAX_PER_PAGE);
  return { page, perPage, offset: (page - 1) * perPage };
}

export type ListKey = 'events' | 'venues' | 'organizers' | 'categories' | 'tags' | 'audit';

/** A list page as the spec declares them all (`EventList`, `VenueList`…): the links and counts, the items at `K`. */
export type ListBody<K extends ListKey, T> = components['schemas']['ListLinks'] & { [P in K]: T[] };

/** A page's items serialised already (the representation cache's bytes): spliced into the envelope as they are. */
export class SerialisedItems {
  constructor(readonly parts: Buffer[]) {}
  get length(): number {
    return this.parts.length;
  }
}

interface ListPage<K extends ListKey, T> {
  key: K;
  items: T[] | SerialisedItems;
  total: number;
  paging: Paging;
  /** The collection's path under the namespace root when it is not `key` (`events/occurrences/12`). */
  path?: string;
}

/** Sends a list page. Events, venues and organizers answer 404 `<kind>-archive-page-not-found` past the last page. */
export function sendList<K extends ListKey, T>(
  req: RequestLike,
  res: Response<ListBody<K, T>>,
  { key, items, total, paging: { page, perPage }, path = key }: ListPage<K, T>,
): void {
  const totalPages = Math.ceil(total / perPage);
  const isTerm = key === 'categories' || key === 'tags' || key === 'audit'; // no 404 past the last page
  if (!isTerm && page > 1 && items.length === 0) {
    const kind = key.slice(0, -1);
    throw new ApiError(404, `${kind}-archive-page-not-found`, 'archive_page_not_found');
  }
  const url = (n: number) => pageUrl(req, path, n, perPage);
  const next = page < totalPages ? url(page + 1) : undefined;
  const previous = page > 1 && (isTerm || page - 1 <= totalPages) ? url(page - 1) : undefined;

  res.setHeader('X-TEC-Total', String(total));
  res.setHeader('X-TEC-TotalPages', String(totalPages));
  res.setHeader('X-WP-Total', String(total));
  res.setHeader('X-WP-TotalPages', String(totalPages));
  const linkHeader = [next && `<${next}>; rel="next"`, previous && `<${previous}>; rel="prev"`].filter(Boolean);
  if (linkHeader.length) res.setHeader('Link', linkHeader.join(', '));

  const pageLinks = { ...(next && { next_rest_url: next }), ...(previous && { previous_rest_url: previous }) };
  const restUrl = url(page);
  // a computed key of a generic type (`[key]`) widens to an index signature: the cast restores `K`
  const listed = items instanceof SerialisedItems ? [] : items;
  const body = (
    isTerm
      ? { rest_url: restUrl, total, total_pages: totalPages, [key]: listed, ...pageLinks }
      : { [key]: listed, rest_url: restUrl, ...pageLinks, total, total_pages: totalPages }
  ) as ListBody<K, T>;
  if (items instanceof SerialisedItems) sendJsonBytes(res, spliceArray(body, key, items.parts));
  else res.json(body);
}

/**
 * The collection URL with every declared query parameter the caller sent (as validated), `page` and the effective
 * `per_page`, percent-encoded, in the spec's parameter order (docs/decisions.md D11: echo every filter), except
 * credentials (`password`, `key`: D121), which no answer repeats.
 */
function pageUrl(req: RequestLike, path: string, page: number, perPage: number): string {
  const operation = req.res?.locals.operation as Operation;
  const sent = new URLSearchParams(req.originalUrl.split('?')[1] ?? '');
  const query = req.query as Record<string, unknown>;
  const params = new URLSearchParams({ page: String(page), per_page: String(perPage) });
  for (const { name, in: location } of operation.parameters) {
    if (location !== 'query' || name === 'page' || name === 'per_page' || isSecretName(name)) continue;
    if (!sent.has(name) && !sent.has(`${name}[]`)) continue;
    const value = query[name];
    if (value !== undefined) params.set(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  return `${restRoot(req)}/${path}/?${params.toString().replace(/\+/g, '%20')}`;
}
