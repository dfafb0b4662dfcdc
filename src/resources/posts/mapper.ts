/** Wire fields every post-like record shares: ids, author, status, publication times, URLs, global ids. */
import { formatLocal, fromUtc } from '../../domain/dates';
import { autop } from '../../domain/html';
import type { RenderContext } from '../../core/reader';
import { KINDS } from '../../kinds/registry';
import { toWireImage, type ImageRow } from '../images/images';
import type { PostRow, PostType } from './repository';

export type { RenderContext };

export function postUrl(ctx: RenderContext, type: PostType, slug: string): string {
  return `${ctx.site}/${KINDS[type].publicPath}/${slug}/`;
}

export function globalIds(ctx: RenderContext, id: number) {
  const globalId = `${ctx.globalPrefix}?id=${id}`;
  return { global_id: globalId, global_id_lineage: [globalId] };
}

/** The site prefix and post id of a global id as `globalIds` writes it (`host/path?id=N`); undefined otherwise. */
export function parseGlobalId(globalId: string): { prefix: string; id: number } | undefined {
  const match = /^([^?\s]+)\?id=([1-9]\d{0,9})$/.exec(globalId);
  const id = match ? Number(match[2]) : 0;
  return match && id <= 2_147_483_647 ? { prefix: match[1], id } : undefined;
}

export function publicationTimes(ctx: RenderContext, post: Pick<PostRow, 'date_utc' | 'modified_utc'>) {
  const zone = ctx.config.siteTimezone;
  return {
    date: formatLocal(fromUtc(post.date_utc), zone),
    date_utc: post.date_utc,
    modified: formatLocal(fromUtc(post.modified_utc), zone),
    modified_utc: post.modified_utc,
  };
}

/** HTML stored from callers, as the plugin shows it: plain-text paragraphs wrapped in `<p>`. */
export function content(html: string): string {
  return html ? autop(html) : '';
}

/**
 * The leading fields of a venue or organizer in the plugin's order (docs/compatibility.md §1.5, §1.6), the name under
 * the type's own key; empty ones are removed by `withoutEmpty`.
 */
export function linkedPostHead(
  ctx: RenderContext,
  type: 'venue' | 'organizer',
  row: PostRow & { image_id: number | null },
  images: Map<number, ImageRow>,
) {
  const image = row.image_id === null ? undefined : images.get(row.image_id);
  return {
    author: row.author_id ? String(row.author_id) : '',
    status: row.status,
    ...publicationTimes(ctx, row),
    url: postUrl(ctx, type, row.slug),
    [type]: row.title,
    description: content(row.content),
    excerpt: content(row.excerpt),
    slug: row.slug,
    image: image ? toWireImage(image) : undefined,
  };
}

/** Drops empty values (`''`, `0`, `false`, `undefined`), as the plugin does for venues and organizers; `keep` stays. */
export function withoutEmpty(record: Record<string, unknown>, keep: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([key, value]) => key === keep || Boolean(value)));
}

/** Drops `undefined` and `''` (JSON-LD objects). */
export function dropEmpty(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined && value !== ''));
}

export function stripTags(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}
