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
  const words = text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  return encodeURIComponent(words)
    .toLowerCase()
    .slice(0, MAX_LENGTH)
    .replace(/%[0-9a-f]?$/, '');
}

/** What every slug `firstFreeSlug` may make from `base` starts with: look up the slugs taken with this prefix. */
export function slugFamily(base: string): string {
  return base.slice(0, MAX_LENGTH - 20);
}

/**
 * The first of `base`, `base-2`, `base-3`… not among `taken` (which holds every slug starting with `base`), never
 * longer than 200 characters: the base is shortened to make room for the suffix.
 */
export function firstFreeSlug(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  for (let n = 1; ; n++) {
    const candidate = slugCandidate(base, n);
    if (!used.has(candidate)) return candidate;
  }
}

/** The n-th slug tried for `base`: `base`, then `base-2`, `base-3`… shortened to fit 200 characters. */
export function slugCandidate(base: string, n: number): string {
  if (n === 1) return base;
  const suffix = `-${n}`;
  return `${base.slice(0, MAX_LENGTH - suffix.length).replace(/-+$/, '')}${suffix}`;
}
