/**
 * Time zones without a library: the calendar is drawn in UTC, and every time it shows is the wall-clock time of the
 * chosen zone written as if it were UTC ("floating" times), so the grid never meets a DST change of the viewer's own
 * zone. These helpers move instants in and out of that form with `Intl`.
 */
const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(zone, format);
  }
  return format;
}

/** Whether `zone` is an IANA zone this browser knows. */
export function isZone(zone: string | null | undefined): zone is string {
  if (!zone) return false;
  try {
    formatFor(zone);
    return true;
  } catch {
    return false;
  }
}

/** The viewer's own zone. */
export function viewerZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** How far `zone` is ahead of UTC at the instant `ms`, in milliseconds. */
function offset(zone: string, ms: number): number {
  const parts: Record<string, number> = {};
  for (const part of formatFor(zone).formatToParts(new Date(ms))) parts[part.type] = Number(part.value);
  const wall = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  return wall - (ms - (((ms % 1000) + 1000) % 1000));
}

/** The wall-clock time in `zone` at the instant `ms`, as a floating time. */
export function toWall(ms: number, zone: string): number {
  return ms + offset(zone, ms);
}

/** The instant a floating time stands for in `zone` (a time in a DST gap moves forward, as the service does). */
export function fromWall(wall: number, zone: string): number {
  const first = wall - offset(zone, wall);
  const second = wall - offset(zone, first);
  return first === second ? first : Math.max(first, second);
}

/** `YYYY-MM-DD HH:MM:SS` read as UTC (the API's `utc_*` fields). */
export function parseUtc(text: string): number {
  return Date.parse(`${text.replace(' ', 'T')}Z`);
}

/** An instant as `YYYY-MM-DD HH:MM:SS` in UTC (what `strict_dates` reads as UTC). */
export function formatUtc(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** The day after `YYYY-MM-DD`. */
export function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}
