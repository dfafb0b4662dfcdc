/** The dump read back: into an empty, migrated database, checked against its own counts and checksums. */
import { createHash, type Hash } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { Db } from '../../db/types';
import { deferForeignKeys, rowsPerInsert } from '../../db/dialects/bulk';
import { advanceSequence, type TableInfo } from '../../db/catalogue';
import { appliedMigrations, MIGRATION_NAMES } from '../../db/migrate';
import type { Progress } from '../progress';
import {
  countRows,
  dataTables,
  DEFAULT_BATCH,
  denormalise,
  DUMP_FORMAT,
  DUMP_VERSION,
  DumpError,
  eachBatch,
  MIGRATION_SEEDED_TABLES,
  type DumpHeader,
  type DumpOptions,
  type DumpTrailer,
  type TableSummary,
} from './format';

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
  progress?.start(
    'rows',
    header.tables.reduce((sum, t) => sum + t.rows, 0),
  );
  try {
    return await db.transaction(async (trx) => {
      // rows of a table pointing at rows of the same table may come first: check foreign keys at commit
      await deferForeignKeys(trx);
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
        await insertRows(trx, table, targets.get(table.name) as TableInfo, record.rows, batchSize);
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
      `the dump was written by a newer version (migrations this build does not have: ${unknown.join(', ')}); ` +
        'import it with that version or a later one',
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
): Promise<void> {
  const kinds = table.columns.map(([name]) => target.columns.find((c) => c.name === name)?.kind ?? 'text');
  // per statement: as many rows as the engine takes, and at most 30 000 bound parameters (SQLite allows 32 766)
  const rowLimit = rowsPerInsert(trx, batchSize);
  const perStatement = Math.max(1, Math.min(rowLimit, Math.floor(30_000 / Math.max(1, table.columns.length))));
  for (let start = 0; start < rows.length; start += perStatement) {
    const records = rows.slice(start, start + perStatement).map((row) => {
      if (!Array.isArray(row) || row.length !== table.columns.length)
        throw new DumpError(`a row of ${table.name} does not have the header's columns`);
      return Object.fromEntries(table.columns.map(([name], i) => [name, denormalise(kinds[i], row[i], trx)]));
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
