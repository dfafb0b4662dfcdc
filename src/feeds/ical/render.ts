/**
 * Records → an iCalendar object (RFC 5545), pure: the VCALENDAR with one VTIMEZONE per zone used (`vtimezone.ts`)
 * and one VEVENT per record (`vevent.ts`), its lines folded and ended with CRLF (`src/domain/icalendar.ts`).
 */
import { CRLF, fold, text } from '../../domain/icalendar';
import { renderEvent, type CalendarEvent } from './vevent';
import { timezones } from './vtimezone';

export interface CalendarInfo {
  prodId: string;
  name: string;
  /** X-WR-TIMEZONE: the site's zone. */
  timezone: string;
  refreshMinutes: number;
}

export function renderCalendar(info: CalendarInfo, events: CalendarEvent[]): string {
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    `PRODID:${text(info.prodId)}`,
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    `X-WR-CALNAME:${text(info.name)}`,
    `X-WR-TIMEZONE:${text(info.timezone)}`,
    `REFRESH-INTERVAL;VALUE=DURATION:PT${info.refreshMinutes}M`,
    `X-PUBLISHED-TTL:PT${info.refreshMinutes}M`,
    ...timezones(events),
    ...events.flatMap(renderEvent),
    'END:VCALENDAR',
  ];
  return lines.map(fold).join(CRLF) + CRLF;
}
