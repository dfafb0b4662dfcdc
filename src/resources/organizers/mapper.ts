/** Organizer rows to the wire (tec-compat §1.6): every empty field is left out. */
import type { components } from '../../../generated/schema';
import { toWireImage, type ImageRow } from '../images/images';
import { content, globalIds, postUrl, publicationTimes, type RenderContext } from '../posts/mapper';
import { dropEmpty, stripTags } from '../venues/mapper';
import type { OrganizerRow } from './repository';

type Organizer = components['schemas']['Organizer'];

export function toWireOrganizer(ctx: RenderContext, row: OrganizerRow, images: Map<number, ImageRow>, withJsonLd = false): Organizer {
  const image = row.image_id === null ? undefined : images.get(row.image_id);
  const droppable = {
    author: row.author_id ? String(row.author_id) : '',
    status: row.status,
    ...publicationTimes(ctx, row),
    url: postUrl(ctx, 'organizer', row.slug),
    organizer: row.title,
    description: content(row.content),
    excerpt: content(row.excerpt),
    slug: row.slug,
    image: image ? toWireImage(image) : undefined,
    phone: row.phone,
    website: row.website,
    email: row.email,
    ...(withJsonLd ? { json_ld: organizerJsonLd(ctx, row) } : {}),
  };
  const kept = Object.fromEntries(Object.entries(droppable).filter(([key, value]) => key === 'organizer' || Boolean(value)));
  return { id: row.id, ...kept, ...globalIds(ctx, row.id) } as Organizer;
}

/** schema.org Person (tec-compat §7.2). */
export function organizerJsonLd(ctx: RenderContext, row: OrganizerRow): Record<string, unknown> {
  return dropEmpty({
    '@context': 'http://schema.org', '@type': 'Person', name: row.title, description: stripTags(row.content),
    url: postUrl(ctx, 'organizer', row.slug), telephone: row.phone, email: row.email, sameAs: row.website,
  });
}
