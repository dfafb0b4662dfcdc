/** Organizer rows to the wire (docs/compatibility.md §1.6): every empty field is left out. */
import type { components } from '../../../generated/schema';
import type { ImageRow } from '../images/images';
import {
  dropEmpty,
  globalIds,
  linkedPostHead,
  postUrl,
  stripTags,
  withoutEmpty,
  type RenderContext,
} from '../posts/mapper';
import type { OrganizerRow } from './repository';

type Organizer = components['schemas']['Organizer'];

export function toWireOrganizer(
  ctx: RenderContext,
  row: OrganizerRow,
  images: Map<number, ImageRow>,
  withJsonLd = false,
): Organizer {
  const droppable = {
    ...linkedPostHead(ctx, 'organizer', row, images),
    phone: row.phone,
    website: row.website,
    email: row.email,
    ...(withJsonLd ? { json_ld: organizerJsonLd(ctx, row) } : {}),
  };
  return { id: row.id, ...withoutEmpty(droppable, 'organizer'), ...globalIds(ctx, row.id) } as Organizer;
}

/** schema.org Person (docs/compatibility.md §7.2). */
export function organizerJsonLd(ctx: RenderContext, row: OrganizerRow): Record<string, unknown> {
  return dropEmpty({
    '@context': 'http://schema.org',
    '@type': 'Person',
    name: row.title,
    description: stripTags(row.content),
    url: postUrl(ctx, 'organizer', row.slug),
    telephone: row.phone,
    email: row.email,
    sameAs: row.website,
  });
}
