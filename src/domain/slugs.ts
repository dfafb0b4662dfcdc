/** Slugs as WordPress makes them (`sanitize_title`) and made unique with `-2`, `-3`… (`wp_unique_*_slug`). */
const MAX_LENGTH = 200;

/** Letters `remove_accents` spells out rather than stripping a mark from (en_US, the default locale). */
const SPELLED: Record<string, string> = Object.fromEntries(
  [
    'ß=ss Æ=AE æ=ae Ð=D ð=d Ø=O ø=o Þ=TH þ=th Đ=D đ=d Ħ=H ħ=h ı=i Ĳ=IJ ĳ=ij ĸ=k Ŀ=L ŀ=l Ł=L ł=l ŉ=N Ŋ=N ŋ=n',
    'Œ=OE œ=oe Ŧ=T ŧ=t ſ=s ª=a º=o €=E Ə=E ə=e',
  ]
    .join(' ')
    .split(' ')
    .map((pair) => pair.split('=')),
);
/** The Latin letters (and signs) `remove_accents` knows; anything else is kept and percent-encoded. */
const ACCENTED = /[\u00aa\u00ba\u00c0-\u024f\u0259\u018f\u1e00-\u1eff\u20ac]/g;

/** WordPress's `remove_accents`: Latin letters lose their marks ('Café' → 'Cafe', 'Straße' → 'Strasse'). */
function removeAccents(text: string): string {
  return text
    .normalize('NFC')
    .replace(ACCENTED, (letter) => SPELLED[letter] ?? letter.normalize('NFD').replace(/[\u0300-\u036f]/g, ''));
}

/** WordPress's `utf8_uri_encode`: non-ASCII characters as lower-case %xx octets, stopping before `limit` bytes. */
function uriEncode(text: string, limit: number): string {
  let encoded = '';
  for (const char of text) {
    const next = char.charCodeAt(0) < 128 ? char : encodeURIComponent(char).toLowerCase();
    if (encoded.length + next.length > limit) break;
    encoded += next;
  }
  return encoded;
}

/** Octets `sanitize_title_with_dashes` turns into a dash: spaces of every width, dashes, line and paragraph ends. */
const DASHES = /%c2%a0|%e2%80%9[34]|%e2%80%8[0-9a]|%e2%80%a[89f]|&nbsp;|&#160;|&ndash;|&#8211;|&mdash;|&#8212;|\//g;
/** Octets it drops: soft hyphen, ¡ ¿, angle and curly quotes, bullet, © ® ° … ™, accents, zero-width characters. */
const DROPPED = new RegExp(
  [
    '%c2%a[19abde]|%c2%b[04bf]', // ¡ « soft hyphen © ® ° ´ » ¿
    '%e2%80%9[89a-f]|%e2%80%b[9a]|%e2%80%a[26]|%e2%84%a2', // curly and angle quotes, bullet, …, ™
    '%cb%8a|%cc%8[014c]|%cd%81', // combining accents
    '%e2%80%8[b-f]|%e2%80%a[a-e]|%ef%bb%bf|%ef%bf%bc', // zero-width characters
  ].join('|'),
  'g',
);

/**
 * A slug as WordPress's `sanitize_title` makes one when saving: accents removed, tags and HTML entities dropped
 * (`Rock &amp; Roll` → `rock-roll`), other punctuation removed, lower-case words joined by dashes. Characters with no
 * Latin spelling (Japanese, say) are kept as lower-case percent-encoded UTF-8, at most 200 bytes of it.
 */
export function makeSlug(text: string): string {
  const octets = removeAccents(text)
    .replace(/<!--[\s\S]*?-->|<\/?[A-Za-z!?][^>]*>/g, '') // strip_tags
    .replace(/%(?![a-fA-F0-9]{2})/g, ''); // escaped octets are kept, any other '%' dropped
  return uriEncode(octets.toLowerCase(), MAX_LENGTH)
    .toLowerCase()
    .replace(DASHES, '-')
    .replace(DROPPED, '')
    .replace(/%c3%97/g, 'x')
    .replace(/&.+?;/g, '')
    .replace(/\./g, '-')
    .replace(/[^%a-z0-9 _-]/g, '')
    .replace(/\s+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-+|-+$/g, '');
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
