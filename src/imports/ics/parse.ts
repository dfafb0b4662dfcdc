/**
 * iCalendar text → its VTIMEZONE and VEVENT components (ical.js), each with the line it starts on. A broken line or
 * a block ical.js cannot read makes that VEVENT a skipped one, reported with its line; the rest still imports.
 */
import ICAL from 'ical.js';
import { isContentLine, unfold } from '../../domain/icalendar';

/** A VEVENT the import skips: the message says why. */
export class SkipEvent extends Error {}

interface Block {
  line: number;
  lines: string[];
}

export interface ParsedCalendar {
  calendarZone?: string;
  zones: Map<string, ICAL.Component>;
  events: Array<{ line: number; vevent?: ICAL.Component; error?: string }>;
}

/** Unfolds the text and cuts it into VTIMEZONE and VEVENT blocks, keeping the line each starts on. */
export function readCalendar(text: string): ParsedCalendar {
  const result: ParsedCalendar = { zones: new Map(), events: [] };
  let block: (Block & { kind: string; broken?: number }) | undefined;
  let depth = 0;
  for (const { text: content, line } of unfold(text)) {
    const upper = content.toUpperCase();
    if (!block) {
      if (upper === 'BEGIN:VEVENT' || upper === 'BEGIN:VTIMEZONE') {
        block = { kind: upper.slice(6), line, lines: [content] };
        depth = 1;
      } else if (upper.startsWith('X-WR-TIMEZONE:'))
        result.calendarZone = content.slice('X-WR-TIMEZONE:'.length).trim();
      continue;
    }
    block.lines.push(content);
    if (!isContentLine(content) && block.broken === undefined) block.broken = line;
    if (upper.startsWith('BEGIN:')) depth++;
    if (upper.startsWith('END:')) depth--;
    if (depth > 0) continue;
    finish(result, block);
    block = undefined;
  }
  if (block) result.events.push({ line: block.line, error: `${block.kind} is never closed` });
  return result;
}

function finish(result: ParsedCalendar, block: Block & { kind: string; broken?: number }): void {
  if (block.broken !== undefined) {
    if (block.kind === 'VEVENT')
      result.events.push({ line: block.broken, error: 'broken line: not "NAME;PARAMS:VALUE"' });
    return;
  }
  try {
    const wrapped = new ICAL.Component(
      ICAL.parse(`BEGIN:VCALENDAR\r\n${block.lines.join('\r\n')}\r\nEND:VCALENDAR\r\n`),
    );
    const component = wrapped.getAllSubcomponents()[0];
    if (block.kind === 'VTIMEZONE') result.zones.set(String(component.getFirstPropertyValue('tzid')), component);
    else result.events.push({ line: block.line, vevent: component });
  } catch (err) {
    if (block.kind === 'VEVENT')
      result.events.push({ line: block.line, error: `unreadable event: ${(err as Error).message}` });
  }
}
