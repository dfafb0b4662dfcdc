/**
 * The portable dump: every table the migrations created (read from the database's catalogue, so tables added later
 * need no code), as versioned JSON Lines, streamed. Line 1 is the header (format version, applied migrations, each
 * table's columns, key, row count and last issued id); then `{"table", "rows"}` lines of at most `batchSize` rows in
 * key order; last, a trailer with each table's row count and checksum. Values are normalised (booleans as
 * true/false, integers and numbers as JSON numbers, timestamps and JSON as text, binary as base64), so the SQLite
 * and PostgreSQL dumps of the same data are the same bytes, and the checksum (SHA-256 over the rows' JSON lines in
 * key order) can be recomputed on either engine.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Executor } from '../../db/types';
import { toBoolean } from '../../db/dialect';
import { textInByteOrder } from '../../db/dialects/bulk';
import { storedBoolean } from '../../db/dialects/booleans';
import { inDependencyOrder, listTables, type ColumnKind, type TableInfo } from '../../db/catalogue';
import type { Progress } from '../progress';

export const DUMP_FORMAT = 'calendar-dump';
export const DUMP_VERSION = 1;
/**
 * Not data: Knex's migration bookkeeping (the target has its own), the failed-login counters, the recurrence
 * horizon lease and the data version (transient coordination state; their migrations seed the rows, so a fresh
 * target has them already, and the import's own writes move the data version on).
 */
export const SKIPPED_TABLES: ReadonlySet<string> = new Set([
  'knex_migrations',
  'knex_migrations_lock',
  'auth_throttle',
  'series_lease',
  'data_version',
  'service_secret', // every database keeps its own (migration 013)
]);
/**
 * Tables whose rows a migration seeds (a fresh database has them): they do not make a target "not empty", and the
 * dump's rows replace them. `change_feed` says how far retention has pruned the change feed.
 */
export const MIGRATION_SEEDED_TABLES: ReadonlySet<string> = new Set(['change_feed']);
export const DEFAULT_BATCH = 1000;

export interface DumpHeader {
  format: typeof DUMP_FORMAT;
  version: number;
  migrations: string[];
  tables: Array<{ name: string; columns: Array<[string, ColumnKind]>; key: string[]; rows: number; lastId?: number }>;
}
export interface TableSummary {
  rows: number;
  checksum: string;
}
export interface DumpTrailer {
  end: true;
  tables: Record<string, TableSummary>;
}

export interface DumpOptions {
  batchSize?: number;
  progress?: Progress;
}

/** A dump this build cannot load, or a target it must not load into: the message says which and why. */
export class DumpError extends Error {}

/** The tables a dump holds, each after the tables its foreign keys point at. */
export async function dataTables(db: Executor): Promise<TableInfo[]> {
  return inDependencyOrder((await listTables(db)).filter((t) => !SKIPPED_TABLES.has(t.name)));
}

/** Row count and checksum of every table, read the way the dump reads them (for verification and tests). */
export async function checksums(db: Executor, batchSize = DEFAULT_BATCH): Promise<Record<string, TableSummary>> {
  const summary: Record<string, TableSummary> = {};
  for (const table of await dataTables(db)) summary[table.name] = await eachBatch(db, table, batchSize, async () => {});
  return summary;
}

/**
 * Reads a table in key order, `batchSize` rows at a time (keyset paging: each batch starts after the previous
 * one's last key, so a large table costs no more per batch than a small one), and hands each batch on as the
 * rows' normalised JSON texts. Text keys sort byte-wise on both engines (PostgreSQL: `collate "C"`).
 */
export async function eachBatch(
  db: Executor,
  table: TableInfo,
  batchSize: number,
  onBatch: (lines: string[]) => Promise<void>,
): Promise<TableSummary> {
  const hash = createHash('sha256');
  const kinds = table.columns.map((c) => c.kind);
  const names = table.columns.map((c) => c.name);
  const order = orderOf(db, table);
  let rows = 0;
  let after: unknown[] | undefined;
  for (;;) {
    let query = db(table.name).select(names).orderByRaw(order.sql, order.bindings).limit(batchSize);
    if (table.key.length === 0) query = query.offset(rows);
    else if (after)
      query = query.whereRaw(`(${order.sql}) > (${table.key.map(() => '?').join(', ')})`, [
        ...order.bindings,
        ...after,
      ] as Knex.RawBinding[]);
    const batch = (await query) as Array<Record<string, unknown>>;
    if (!batch.length) break;
    const lines = batch.map((row) => JSON.stringify(names.map((name, i) => normalise(kinds[i], row[name]))));
    for (const line of lines) hash.update(line).update('\n');
    rows += batch.length;
    await onBatch(lines);
    after = table.key.map((k) => batch[batch.length - 1][k]);
    if (batch.length < batchSize) break;
  }
  return { rows, checksum: `sha256:${hash.digest('hex')}` };
}

function orderOf(db: Executor, table: TableInfo): { sql: string; bindings: string[] } {
  const columns = table.key.length ? table.key : table.columns.map((c) => c.name);
  const kind = new Map(table.columns.map((c) => [c.name, c.kind]));
  const text = textInByteOrder(db);
  return {
    sql: columns.map((c) => (kind.get(c) === 'text' ? text : '??')).join(', '),
    bindings: columns,
  };
}

/** A value as the dump writes it, whichever engine it came from. */
function normalise(kind: ColumnKind, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case 'boolean':
      return toBoolean(value) || value === 't' || value === 'true';
    case 'integer':
    case 'number':
      return typeof value === 'number' ? value : Number(value);
    case 'binary':
      return Buffer.isBuffer(value) ? value.toString('base64') : Buffer.from(String(value)).toString('base64');
    case 'json':
      return canonicalJson(value);
    case 'timestamp':
      return value instanceof Date || typeof value === 'number' ? timestampText(new Date(value)) : String(value);
    default:
      return typeof value === 'string' ? value : String(value);
  }
}

/** JSON text with keys sorted (PostgreSQL's jsonb reorders keys; SQLite keeps the text as written). */
function canonicalJson(value: unknown): string {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return value;
    }
  }
  const sorted = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sorted);
    if (v && typeof v === 'object')
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
      );
    return v;
  };
  return JSON.stringify(sorted(parsed));
}

/** `YYYY-MM-DD HH:MM:SS[.mmm]` in UTC: the project's stored form of an instant. */
function timestampText(date: Date): string {
  return date
    .toISOString()
    .replace('T', ' ')
    .replace(/(\.000)?Z$/, '');
}

/** A dumped value as the target engine stores it. */
export function denormalise(kind: ColumnKind, value: unknown, db: Executor): unknown {
  if (value === null) return null;
  if (kind === 'boolean') return storedBoolean(db, value);
  if (kind === 'binary') return Buffer.from(String(value), 'base64');
  return value;
}

export async function countRows(db: Executor, table: string): Promise<number> {
  const [{ n }] = (await db(table).count({ n: '*' })) as Array<{ n: unknown }>;
  return Number(n);
}
