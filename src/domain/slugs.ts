/** Slugs as WordPress makes them (`sanitize_title`) and made unique with `-2`, `-3`… (`wp_unique_*_slug`). */
import slugify from 'slugify';

const MAX_LENGTH = 200;

/**
 * Lower-case ASCII words joined by dashes, transliterating accents (`Café Nuit` → `cafe-nuit`). Text with no Latin
 * letters at all (Japanese, say) is kept as WordPress keeps it: percent-encoded UTF-8, lower-cased.
 */
export function makeSlug(text: string): string {
  const ascii = slugify(text, { lower: true, strict: true, trim: true });
  if (ascii) return ascii.slice(0, MAX_LENGTH).replace(/-+$/, '');
  const words = text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '');
  return encodeURIComponent(words).toLowerCase().slice(0, MAX_LENGTH).replace(/%[0-9a-f]?$/, '');
}

/** The first of `base`, `base-2`, `base-3`… not among `taken` (which holds every slug starting with `base`). */
export function firstFreeSlug(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!used.has(candidate)) return candidate;
  }
}
