/**
 * The portable dump: every table the migrations created (read from the database's catalogue, so tables added later
 * need no code), as versioned JSON Lines, streamed. Line 1 is the header (format version, applied migrations, each
 * table's columns, key, row count and last issued id); then `{"table", "rows"}` lines of at most `batchSize` rows in
 * key order; last, a trailer with each table's row count and checksum. Values are normalised (booleans as
 * true/false, integers and numbers as JSON numbers, timestamps and JSON as text, binary as base64), so the SQLite
 * and PostgreSQL dumps of the same data are the same bytes, and the checksum (SHA-256 over the rows' JSON lines in
 * key order) can be recomputed on either engine.
 */
import { createHash, type Hash } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import type { Readable, Writable } from 'node:stream';
import type { Knex } from 'knex';
import type { Db, Executor } from '../db/types';
import { isPostgres, toBoolean } from '../db/dialect';
import {
  advanceSequence,
  inDependencyOrder,
  lastIssuedId,
  listTables,
  type ColumnKind,
  type TableInfo,
} from '../db/catalogue';
import { appliedMigrations, MIGRATION_NAMES } from '../db/migrate';
import type { Progress } from './progress';

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
]);
/**
 * Tables whose rows a migration seeds (a fresh database has them): they do not make a target "not empty", and the
 * dump's rows replace them. `change_feed` says how far retention has pruned the change feed.
 */
export const MIGRATION_SEEDED_TABLES: ReadonlySet<string> = new Set(['change_feed']);
const DEFAULT_BATCH = 1000;

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
interface DumpTrailer {
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

/**
 * Writes the whole database to `out` from one consistent snapshot (a read-only repeatable-read transaction on
 * PostgreSQL, a read transaction on SQLite), while the service keeps serving.
 */
export async function exportDump(
  db: Db,
  out: Writable,
  { batchSize = DEFAULT_BATCH, progress }: DumpOptions = {},
): Promise<Record<string, TableSummary>> {
  return db.transaction(async (trx) => {
    if (isPostgres(trx)) await trx.raw('set transaction isolation level repeatable read, read only');
    const tables = await dataTables(trx);
    const header: DumpHeader = {
      format: DUMP_FORMAT,
      version: DUMP_VERSION,
      migrations: await appliedMigrations(trx),
      tables: [],
    };
    for (const table of tables) {
      const lastId = table.sequenceColumn ? await lastIssuedId(trx, table) : undefined;
      header.tables.push({
        name: table.name,
        columns: table.columns.map((c) => [c.name, c.kind]),
        key: table.key,
        rows: await countRows(trx, table.name),
        lastId,
      });
    }
    await write(out, JSON.stringify(header) + '\n');
    progress?.start(
      'rows',
      header.tables.reduce((sum, t) => sum + t.rows, 0),
    );
    const summary: Record<string, TableSummary> = {};
    for (const table of tables) {
      summary[table.name] = await eachBatch(trx, table, batchSize, async (lines) => {
        await write(out, `{"table":${JSON.stringify(table.name)},"rows":[${lines.join(',')}]}\n`);
        progress?.advance(lines.length);
      });
    }
    await write(out, JSON.stringify({ end: true, tables: summary } satisfies DumpTrailer) + '\n');
    progress?.stop();
    return summary;
  });
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
async function eachBatch(
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
  const byteWise = isPostgres(db);
  return {
    sql: columns.map((c) => (byteWise && kind.get(c) === 'text' ? '?? collate "C"' : '??')).join(', '),
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
function denormalise(kind: ColumnKind, value: unknown, postgres: boolean): unknown {
  if (value === null) return null;
  if (kind === 'boolean') return postgres ? value : value ? 1 : 0;
  if (kind === 'binary') return Buffer.from(String(value), 'base64');
  return value;
}

async function countRows(db: Executor, table: string): Promise<number> {
  const [{ n }] = (await db(table).count({ n: '*' })) as Array<{ n: unknown }>;
  return Number(n);
}

function write(out: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    out.once('error', onError);
    const done = () => {
      out.off('error', onError);
      resolve();
    };
    if (out.write(text)) done();
    else out.once('drain', done);
  });
}

/**
 * Loads a dump into an empty, migrated database of either engine, keeping ids: all of it in one transaction, in
 * multi-row inserts of at most `batchSize` rows, then moves the id sequences past the loaded ids and checks every
 * table's count and checksum against the dump before committing. Anything wrong leaves the database as it was.
 */
export async function importDump(
  db: Db,
  input: Readable,
  { batchSize = DEFAULT_BATCH, progress }: DumpOptions = {},
): Promise<Record<string, TableSummary>> {
  const lines = linesOf(input);
  try {
    return await loadLines(db, lines, batchSize, progress);
  } finally {
    await lines.return();
    input.destroy();
  }
}

async function loadLines(
  db: Db,
  lines: AsyncGenerator<string, void, undefined>,
  batchSize: number,
  progress?: Progress,
): Promise<Record<string, TableSummary>> {
  const first = await lines.next();
  const header = parseHeader(first.done ? '' : first.value);
  const targets = await checkTarget(db, header);
  const postgres = isPostgres(db);
  progress?.start(
    'rows',
    header.tables.reduce((sum, t) => sum + t.rows, 0),
  );
  try {
    return await db.transaction(async (trx) => {
      // rows of a table pointing at rows of the same table may come first: check foreign keys at commit
      if (!postgres) await trx.raw('pragma defer_foreign_keys = on');
      for (const table of header.tables) if (MIGRATION_SEEDED_TABLES.has(table.name)) await trx(table.name).delete();
      const read = new Map<string, { rows: number; hash: Hash }>(
        header.tables.map((t) => [t.name, { rows: 0, hash: createHash('sha256') }]),
      );
      let trailer: DumpTrailer | undefined;
      for (let next = await lines.next(); !next.done; next = await lines.next()) {
        if (!next.value.trim()) continue;
        const record = parseLine(next.value);
        if ('end' in record) {
          trailer = record;
          break;
        }
        const table = header.tables.find((t) => t.name === record.table);
        const seen = read.get(record.table);
        if (!table || !seen || !Array.isArray(record.rows))
          throw new DumpError(`the dump has rows for a table its header does not list: ${record.table}`);
        for (const row of record.rows) seen.hash.update(JSON.stringify(row)).update('\n');
        seen.rows += record.rows.length;
        await insertRows(trx, table, targets.get(table.name) as TableInfo, record.rows, batchSize, postgres);
        progress?.advance(record.rows.length);
      }
      if (!trailer) throw new DumpError('the dump ends early (no closing line): it is truncated');
      for (const table of header.tables) {
        const seen = read.get(table.name) as { rows: number; hash: Hash };
        const expected = trailer.tables[table.name];
        const checksum = `sha256:${seen.hash.digest('hex')}`;
        if (!expected || expected.rows !== seen.rows || table.rows !== seen.rows || expected.checksum !== checksum) {
          throw new DumpError(
            `the dump is damaged: table ${table.name} does not match its recorded count and checksum`,
          );
        }
        await advanceSequence(trx, targets.get(table.name) as TableInfo, table.lastId ?? 0);
      }
      await verify(trx, header, targets, trailer, batchSize);
      return trailer.tables;
    });
  } finally {
    progress?.stop();
  }
}

/**
 * The lines of a stream, one at a time, reading the next chunk only when the consumer asks (readline's iterator
 * buffers up to a thousand lines ahead of a slow consumer: with a thousand rows a line, that is most of a dump).
 */
async function* linesOf(input: Readable): AsyncGenerator<string, void, undefined> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  for await (const chunk of input) {
    let searchFrom = pending.length;
    pending += typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
    for (let end = pending.indexOf('\n', searchFrom); end !== -1; end = pending.indexOf('\n', searchFrom)) {
      yield pending.slice(0, end).replace(/\r$/, '');
      pending = pending.slice(end + 1);
      searchFrom = 0;
    }
  }
  pending += decoder.end();
  if (pending) yield pending;
}

function parseHeader(line: string): DumpHeader {
  let header: Partial<DumpHeader>;
  try {
    header = JSON.parse(line) as Partial<DumpHeader>;
  } catch {
    header = {};
  }
  if (header.format !== DUMP_FORMAT || !Array.isArray(header.tables) || !Array.isArray(header.migrations)) {
    throw new DumpError(`not a ${DUMP_FORMAT} file (its first line is not a dump header)`);
  }
  if (header.version !== DUMP_VERSION)
    throw new DumpError(`dump format version ${String(header.version)}: this build reads version ${DUMP_VERSION}`);
  return header as DumpHeader;
}

function parseLine(line: string): { table: string; rows: unknown[][] } | DumpTrailer {
  try {
    return JSON.parse(line) as { table: string; rows: unknown[][] } | DumpTrailer;
  } catch {
    throw new DumpError('the dump has a line that is not JSON: it is damaged or truncated');
  }
}

/** Refuses a dump from a newer build, a target that is not this build's schema, and a target that holds data. */
async function checkTarget(db: Db, header: DumpHeader): Promise<Map<string, TableInfo>> {
  const unknown = header.migrations.filter((name) => !MIGRATION_NAMES.includes(name));
  if (unknown.length) {
    throw new DumpError(
      `the dump was written by a newer version (migrations this build does not have: ${unknown.join(', ')}); import it with that version or a later one`,
    );
  }
  const applied = await appliedMigrations(db);
  const pending = MIGRATION_NAMES.filter((name) => !applied.includes(name));
  if (pending.length) throw new DumpError(`the target database is not migrated (pending: ${pending.join(', ')})`);
  const targets = new Map((await dataTables(db)).map((t) => [t.name, t]));
  for (const table of header.tables) {
    const target = targets.get(table.name);
    if (!target) throw new DumpError(`the target database has no table ${table.name}`);
    const missing = table.columns
      .filter(([name]) => !target.columns.some((c) => c.name === name))
      .map(([name]) => name);
    if (missing.length) throw new DumpError(`the target table ${table.name} has no column ${missing.join(', ')}`);
  }
  const filled: string[] = [];
  for (const name of targets.keys())
    if (!MIGRATION_SEEDED_TABLES.has(name) && (await countRows(db, name)) > 0) filled.push(name);
  if (filled.length) {
    throw new DumpError(
      `the target database is not empty (rows in ${filled.join(', ')}): import into a new, empty database`,
    );
  }
  return targets;
}

async function insertRows(
  trx: Knex.Transaction,
  table: DumpHeader['tables'][number],
  target: TableInfo,
  rows: unknown[][],
  batchSize: number,
  postgres: boolean,
): Promise<void> {
  const kinds = table.columns.map(([name]) => target.columns.find((c) => c.name === name)?.kind ?? 'text');
  // per statement: SQLite allows 32 766 bound parameters and Knex writes its multi-row insert as a compound SELECT
  // (at most 500 terms); PostgreSQL allows 65 535 parameters
  const rowLimit = postgres ? batchSize : Math.min(batchSize, 500);
  const perStatement = Math.max(1, Math.min(rowLimit, Math.floor(30_000 / Math.max(1, table.columns.length))));
  for (let start = 0; start < rows.length; start += perStatement) {
    const records = rows.slice(start, start + perStatement).map((row) => {
      if (!Array.isArray(row) || row.length !== table.columns.length)
        throw new DumpError(`a row of ${table.name} does not have the header's columns`);
      return Object.fromEntries(table.columns.map(([name], i) => [name, denormalise(kinds[i], row[i], postgres)]));
    });
    await trx(table.name).insert(records);
  }
}

/**
 * Reads back what was loaded, the way the dump was written (only the dump's columns: a newer schema may have
 * more), and compares every table with the dump's trailer.
 */
async function verify(
  trx: Knex.Transaction,
  header: DumpHeader,
  targets: Map<string, TableInfo>,
  trailer: DumpTrailer,
  batchSize: number,
): Promise<void> {
  for (const table of header.tables) {
    const dumped = new Set(table.columns.map(([name]) => name));
    const target = targets.get(table.name) as TableInfo;
    const got = await eachBatch(
      trx,
      { ...target, columns: target.columns.filter((c) => dumped.has(c.name)) },
      batchSize,
      async () => {},
    );
    const want = trailer.tables[table.name];
    if (got.rows !== want.rows)
      throw new DumpError(`verification failed: ${table.name} has ${got.rows} rows, the dump ${want.rows}`);
    if (got.checksum !== want.checksum)
      throw new DumpError(`verification failed: ${table.name} reads back differently from the dump (checksum)`);
  }
}
