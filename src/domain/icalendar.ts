/**
 * The iCalendar text codec (RFC 5545), pure, shared by the feed and the import: CRLF line ends, lines folded at 75
 * octets without splitting a UTF-8 character (and unfolded again), TEXT values escaped (and unescaped) and parameter
 * values quoted so that no field can start a line or a property, content lines, the DATE-TIME value forms, TZIDs.
 */
import { DateTime } from 'luxon';

export const CRLF = '\r\n';

// ---- content lines ----

/** Folds a content line into lines of at most 75 octets, never inside a UTF-8 sequence. */
export function fold(line: string): string {
  if (Buffer.byteLength(line) <= 75) return line;
  const parts: string[] = [];
  let current = '';
  let size = 0;
  let limit = 75;
  for (const char of line) {
    const bytes = Buffer.byteLength(char);
    if (size + bytes > limit) {
      parts.push(current);
      current = '';
      size = 0;
      limit = 74; // continuation lines start with a space
    }
    current += char;
    size += bytes;
  }
  parts.push(current);
  return parts.join(`${CRLF} `);
}

/** Unfolds the text into content lines, keeping the line each starts on (a byte order mark and empty lines dropped). */
export function unfold(text: string): Array<{ text: string; line: number }> {
  const unfolded: Array<{ text: string; line: number }> = [];
  text
    .replace(/^\uFEFF/, '')
    .split(/\r\n|\n|\r/)
    .forEach((raw, i) => {
      if ((raw.startsWith(' ') || raw.startsWith('\t')) && unfolded.length)
        unfolded[unfolded.length - 1].text += raw.slice(1);
      else if (raw !== '') unfolded.push({ text: raw, line: i + 1 });
    });
  return unfolded;
}

/** Content lines: a name, parameters (quoted values may hold `:`), a colon. */
const CONTENT_LINE = /^[A-Za-z0-9-]+(;[A-Za-z0-9-]+=("[^"]*"|[^";:,]*)(,("[^"]*"|[^";:,]*))*)*:/;

/** Whether an (unfolded) line has the form of a content line: `NAME;PARAMS:VALUE`. */
export function isContentLine(line: string): boolean {
  return CONTENT_LINE.test(line);
}

// ---- values ----

/** Characters no value may carry: controls other than TAB (line breaks are escaped before this). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters it removes
const CONTROLS = /[\u0000-\u0008\u000a-\u001f\u007f]/g;

/** A TEXT value: backslash, semicolon, comma and line breaks escaped; other controls dropped. */
export function text(value: string): string {
  return value
    .replace(/\r\n?/g, '\n')
    .replace(/[\\;,]/g, (c) => `\\${c}`)
    .replace(/\n/g, '\\n')
    .replace(CONTROLS, '');
}

/** The TEXT escapes undone (backslash, semicolon, comma, `\n`): the reverse of `text`. */
export function unescapeText(value: string): string {
  return value.replace(/\\([\\;,nN])/g, (_, c: string) => (c === 'n' || c === 'N' ? '\n' : c));
}

/** A parameter value: quoted when it needs to be; double quotes (which cannot be escaped) become single ones. */
export function paramValue(value: string): string {
  const clean = value
    .replace(/\r\n?|\n/g, ' ')
    .replace(CONTROLS, '')
    .replace(/"/g, "'");
  return /[;:,]/.test(clean) ? `"${clean}"` : clean;
}

/** A URI value: no controls, no spaces. */
export function uri(value: string): string {
  return value
    .replace(/\r\n?|\n/g, '')
    .replace(CONTROLS, '')
    .replace(/ /g, '%20');
}

/** A stored UTC wall clock (`YYYY-MM-DD HH:MM:SS`) as an instant. */
export const utc = (wallClock: string) => DateTime.fromSQL(wallClock, { zone: 'UTC' });
/** A DATE-TIME in UTC (`…Z`). */
export const utcStamp = (instant: DateTime) => instant.toUTC().toFormat("yyyyLLdd'T'HHmmss'Z'");
/** A local DATE-TIME (read with a TZID) from a stored wall clock. */
export const localStamp = (wallClock: string) => wallClock.replace(/[-:]/g, '').replace(' ', 'T');

// ---- zones ----

/** Zones whose times are written as UTC DATE-TIMEs (`Z`), without a TZID. */
export const isUtc = (zone: string) => zone === 'UTC' || zone === 'Etc/UTC';

/**
 * The stored zone is the TZID: an IANA name, or a fixed offset (`UTC+5:30`), which is no IANA name (the IANA
 * `Etc/GMT+5` is five hours *behind*), so no reader can mistake it for one.
 */
export function tzidOf(zone: string): string {
  return zone;
}
