/**
 * The text search compares: case- and accent-insensitive in every language, as the plugin's MySQL collation
 * (utf8mb4_unicode_ci) is. Pure functions: the stored search text and the query go through the same steps.
 *
 * 1. Unicode NFKD: compatibility forms become plain ones (`ﬁ` → `fi`, full-width `Ａ` → `A`, `ĳ` → `ij`, half-width
 *    katakana → full-width) and accented letters split into a letter and combining marks.
 * 2. Combining marks are dropped (`é` → `e`, `ü` → `u`, `ą` → `a`), except the Japanese voicing marks ゛ ゜, which
 *    change the word (`か` ≠ `が`); NFC then puts those back together (and Hangul syllables).
 * 3. Lower case, then the letters NFKD leaves whole: `ß` → `ss`, `æ` → `ae`, `œ` → `oe`, `ø` → `o`, `ł` → `l`,
 *    `đ`/`ð` → `d`, `þ` → `th`, `ı` → `i`, `ħ` → `h`, final `ς` → `σ`; typographic apostrophes become `'`.
 * 4. Control characters become spaces (the stored text uses one as an end marker, see `indexedText`).
 */

const KEPT_MARKS = /[\u3099\u309a]/u; // Japanese (semi-)voiced sound marks
const MARKS = /\p{M}/gu;
const CONTROLS = /\p{Cc}/gu;

const FOLDED: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
  ŧ: 't',
  ŀ: 'l',
  ς: 'σ',
  '\u2018': "'",
  '\u2019': "'",
  '\u02bc': "'",
  '\u2032': "'",
};
const FOLDABLE = new RegExp(`[${Object.keys(FOLDED).join('')}]`, 'gu');

/** The comparable form of `text`: see the module comment. */
export function normaliseText(text: string): string {
  const decomposed = text.normalize('NFKD').replace(MARKS, (mark) => (KEPT_MARKS.test(mark) ? mark : ''));
  return decomposed
    .normalize('NFC')
    .toLowerCase()
    .replace(FOLDABLE, (c) => FOLDED[c])
    .replace(CONTROLS, ' ');
}

/**
 * Two end markers after every non-empty stored field: every substring of one or two characters is then the start of
 * some trigram of the field, which lets a trigram index answer short search terms (see `predicate.ts`). Queries can
 * never contain the marker (normalising turns control characters into spaces).
 */
export const END_MARK = '\u0001\u0001';

export function indexedText(text: string | null | undefined): string {
  const normalised = normaliseText(text ?? '');
  return normalised ? normalised + END_MARK : '';
}

/** How a resource's `search` is cut into fragments (docs/compatibility.md §5.1–5.3). */
export type FragmentRule = 'words' | 'fragments' | 'whole';

/**
 * The normalised fragments of a search: `words` split at white space (events, WordPress's search), `fragments` at
 * anything but letters, digits and `-` (venues and organizers), `whole` keeps the text as one (terms).
 */
export function searchFragments(search: string, rule: FragmentRule): string[] {
  const normalised = normaliseText(search);
  if (rule === 'whole') return normalised ? [normalised] : [];
  const separator = rule === 'words' ? /\s+/u : /[^\p{L}\p{N}\p{M}-]+/u;
  return [...new Set(normalised.split(separator).filter(Boolean))];
}
