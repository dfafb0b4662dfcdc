/** Venue rows to the wire (docs/compatibility.md §1.5): empty fields before `show_map` are left out. */
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
import type { VenueRow } from './repository';

type Venue = components['schemas']['Venue'];

export function toWireVenue(
  ctx: RenderContext,
  row: VenueRow,
  images: Map<number, ImageRow>,
  withJsonLd = false,
): Venue {
  const hasGeo = row.geo_lat !== null && row.geo_lng !== null;
  const droppable = {
    ...linkedPostHead(ctx, 'venue', row, images),
    address: row.address,
    city: row.city,
    country: row.country,
    province: row.province,
    state: row.state,
    zip: row.zip,
    phone: row.phone,
    website: row.website,
    stateprovince: row.stateprovince,
    ...(hasGeo ? { geo_lat: row.geo_lat as number, geo_lng: row.geo_lng as number } : {}),
    ...(withJsonLd ? { json_ld: venueJsonLd(ctx, row) } : {}),
  };
  return {
    id: row.id,
    ...withoutEmpty(droppable, 'venue'),
    show_map: row.show_map,
    show_map_link: row.show_map_link,
    ...globalIds(ctx, row.id),
  } as Venue;
}

/** schema.org Place (docs/compatibility.md §7.2). */
export function venueJsonLd(ctx: RenderContext, row: VenueRow): Record<string, unknown> {
  const address = dropEmpty({
    '@type': 'PostalAddress',
    streetAddress: row.address,
    addressLocality: row.city,
    addressRegion: row.stateprovince || row.province || row.state,
    postalCode: row.zip,
    addressCountry: row.country,
  });
  return dropEmpty({
    '@context': 'http://schema.org',
    '@type': 'Place',
    name: row.title,
    description: stripTags(row.content),
    url: postUrl(ctx, 'venue', row.slug),
    address: Object.keys(address).length > 1 ? address : undefined,
    geo:
      row.geo_lat !== null && row.geo_lng !== null
        ? { '@type': 'GeoCoordinates', latitude: row.geo_lat, longitude: row.geo_lng }
        : undefined,
    telephone: row.phone,
    sameAs: row.website,
  });
}
