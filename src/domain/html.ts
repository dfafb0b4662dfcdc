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
