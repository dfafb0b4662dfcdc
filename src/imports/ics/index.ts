/**
 * `import ics`: VEVENTs of an iCalendar object into events, written through the event service. `parse.ts` cuts the
 * text into components, `zones.ts` places its times, `mapping.ts` turns a VEVENT into the service's write, and
 * `sync.ts` runs the import and keeps its bookkeeping (mapping rows, fingerprints, events removed from the feed).
 */
export type { IcsImportOptions, ImportSummary } from './options';
export { readCalendar } from './parse';
export { resolveZone } from './zones';
export { eventWrite } from './mapping';
export { findMapping, importIcs, saveMapping, type MappingRow } from './sync';
