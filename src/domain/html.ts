/** HTML from callers is cleaned on write with an allow-list close to WordPress's `wp_kses_post` (sanitize-html). */
import sanitize from 'sanitize-html';

const OPTIONS: sanitize.IOptions = {
  allowedTags: [
    'a',
    'abbr',
    'acronym',
    'b',
    'blockquote',
    'br',
    'cite',
    'code',
    'del',
    'div',
    'em',
    'figcaption',
    'figure',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'hr',
    'i',
    'img',
    'ins',
    'li',
    'ol',
    'p',
    'pre',
    'q',
    's',
    'span',
    'strike',
    'strong',
    'sub',
    'sup',
    'table',
    'tbody',
    'td',
    'tfoot',
    'th',
    'thead',
    'tr',
    'u',
    'ul',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'rel', 'target'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    td: ['colspan', 'rowspan'],
    th: ['colspan', 'rowspan', 'scope'],
    '*': ['class'],
  },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
};

export function sanitizeHtml(html: string): string {
  return sanitize(html, OPTIONS).trim();
}

const BLOCK = /<(p|div|ul|ol|li|table|blockquote|pre|h[1-6]|figure|hr)\b/i;

/**
 * WordPress's `wpautop`, the part that matters for stored text: without block-level markup, blank lines separate
 * `<p>` paragraphs and single newlines become `<br />`. Text that already has blocks is left as it is.
 */
export function autop(text: string): string {
  const trimmed = text.trim();
  if (!trimmed || BLOCK.test(trimmed)) return trimmed;
  return trimmed
    .split(/\n\s*\n/)
    .map((paragraph) => `<p>${paragraph.trim().replace(/\n/g, '<br />\n')}</p>`)
    .join('\n');
}

/** Plain text from callers (titles, names): every tag removed, the text kept and HTML-escaped. */
export function sanitizeText(text: string): string {
  return sanitize(text, { allowedTags: [], allowedAttributes: {} }).trim();
}

/** Plain text from stored HTML: block ends and `<br>` as line breaks, tags dropped, entities decoded. */
export function htmlToText(html: string): string {
  const withBreaks = html.replace(/<br\s*\/?>/gi, '\n').replace(/<\/(p|div|li|h[1-6]|blockquote|tr)>/gi, '\n');
  const bare = withBreaks.replace(/<[^>]*>/g, '');
  return decodeEntities(bare)
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  '#39': "'",
};

function decodeEntities(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+\d*);/gi, (whole, name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith('#x')) return safeChar(parseInt(lower.slice(2), 16)) ?? whole;
    if (lower.startsWith('#')) return safeChar(parseInt(lower.slice(1), 10)) ?? whole;
    return ENTITIES[lower] ?? whole;
  });
}

function safeChar(code: number): string | undefined {
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}
