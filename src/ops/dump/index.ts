/** The portable dump: its format (`format.ts`), writing it (`export.ts`) and loading it (`import.ts`). */
export {
  checksums,
  dataTables,
  DUMP_FORMAT,
  DUMP_VERSION,
  DumpError,
  MIGRATION_SEEDED_TABLES,
  SKIPPED_TABLES,
  type DumpHeader,
  type DumpOptions,
  type TableSummary,
} from './format';
export { exportDump } from './export';
export { importDump } from './import';
