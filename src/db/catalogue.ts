/**
 * What the database's own catalogue says about its tables (SQLite's `sqlite_master` and pragmas, PostgreSQL's
 * `pg_catalog`): columns with a portable kind, primary key, the tables each references, and the id sequence. The
 * dump reads every table from here, so tables added by later migrations need no code.
 */
import type { Executor } from './types';
import { isPostgres } from './dialect';

/** How a column's values are written in a dump, the same on both engines. */
export type ColumnKind = 'integer' | 'number' | 'boolean' | 'text' | 'json' | 'binary' | 'timestamp';

export interface TableInfo {
  name: string;
  /** Sorted by name: the dump's column order does not depend on the order migrations added them in. */
  columns: Array<{ name: string; kind: ColumnKind }>;
  /** Primary-key columns in key order (empty without a primary key). */
  key: string[];
  /** Tables this one's foreign keys point at (itself excluded). */
  references: string[];
  /** The single integer key column ids are drawn for from a sequence (PostgreSQL) or AUTOINCREMENT (SQLite). */
  sequenceColumn?: string;
}

export async function listTables(db: Executor): Promise<TableInfo[]> {
  const tables = isPostgres(db) ? await postgresTables(db) : await sqliteTables(db);
  for (const table of tables) table.columns.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return tables;
}

async function sqliteTables(db: Executor): Promise<TableInfo[]> {
  // ordinary tables only: virtual tables (FTS5 indexes) and their shadow tables are derived, rebuilt by triggers
  const rows = (await db.raw(`select l.name, m.sql from pragma_table_list l join sqlite_master m on m.name = l.name
    where l.schema = 'main' and l.type = 'table' and l.name not like 'sqlite\\_%' escape '\\'
    order by l.name`)) as Array<{
    name: string;
    sql: string;
  }>;
  const tables: TableInfo[] = [];
  for (const { name, sql } of rows) {
    const columns = (await db.raw('select name, type, pk from pragma_table_info(?) order by cid', [name])) as Array<{
      name: string;
      type: string;
      pk: number;
    }>;
    const foreign = (await db.raw('select "table" as target from pragma_foreign_key_list(?)', [name])) as Array<{
      target: string;
    }>;
    const key = columns
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    const single = key.length === 1 ? columns.find((c) => c.name === key[0]) : undefined;
    tables.push({
      name,
      columns: columns.map((c) => ({ name: c.name, kind: sqliteKind(c.type) })),
      key,
      references: unique(foreign.map((f) => f.target).filter((t) => t !== name)),
      sequenceColumn: single && /\bautoincrement\b/i.test(sql) ? single.name : undefined,
    });
  }
  return tables;
}

function sqliteKind(declared: string): ColumnKind {
  const type = declared.toLowerCase();
  if (type.includes('bool')) return 'boolean';
  if (type.includes('int')) return 'integer';
  if (/double|float|real|decimal|numeric/.test(type)) return 'number';
  if (type.includes('blob')) return 'binary';
  if (type.includes('json')) return 'json';
  if (/date|time/.test(type)) return 'timestamp';
  return 'text';
}

async function postgresTables(db: Executor): Promise<TableInfo[]> {
  const { rows: names } =
    (await db.raw(`select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind in ('r', 'p') order by c.relname`)) as {
      rows: Array<{ name: string }>;
    };
  const { rows: columns } = (await db.raw(`select table_name as "table", column_name as name, data_type as type
    from information_schema.columns where table_schema = current_schema() order by ordinal_position`)) as {
    rows: Array<{ table: string; name: string; type: string }>;
  };
  const { rows: keys } = (await db.raw(`select c.relname as "table", a.attname as name,
      array_position(i.indkey::smallint[], a.attnum) as position
    from pg_index i join pg_class c on c.oid = i.indrelid join pg_namespace n on n.oid = c.relnamespace
    join pg_attribute a on a.attrelid = c.oid and a.attnum = any(i.indkey)
    where i.indisprimary and n.nspname = current_schema() order by 1, 3`)) as {
    rows: Array<{ table: string; name: string }>;
  };
  const { rows: foreign } = (await db.raw(`select c.relname as "table", r.relname as target
    from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_class r on r.oid = k.confrelid
    join pg_namespace n on n.oid = c.relnamespace where k.contype = 'f' and n.nspname = current_schema()`)) as {
    rows: Array<{ table: string; target: string }>;
  };
  const tables: TableInfo[] = [];
  for (const { name } of names) {
    const own = columns.filter((c) => c.table === name);
    const key = keys.filter((k) => k.table === name).map((k) => k.name);
    const single = key.length === 1 ? own.find((c) => c.name === key[0]) : undefined;
    let sequenceColumn: string | undefined;
    if (single && postgresKind(single.type) === 'integer') {
      const { rows } = (await db.raw('select pg_get_serial_sequence(?, ?) as sequence', [
        quoteIdentifier(name),
        single.name,
      ])) as { rows: Array<{ sequence: string | null }> };
      if (rows[0]?.sequence) sequenceColumn = single.name;
    }
    tables.push({
      name,
      columns: own.map((c) => ({ name: c.name, kind: postgresKind(c.type) })),
      key,
      references: unique(foreign.filter((f) => f.table === name && f.target !== name).map((f) => f.target)),
      sequenceColumn,
    });
  }
  return tables;
}

function postgresKind(type: string): ColumnKind {
  if (type === 'boolean') return 'boolean';
  if (['smallint', 'integer', 'bigint'].includes(type)) return 'integer';
  if (['real', 'double precision', 'numeric'].includes(type)) return 'number';
  if (type === 'bytea') return 'binary';
  if (type === 'json' || type === 'jsonb') return 'json';
  if (type.startsWith('timestamp') || type === 'date') return 'timestamp';
  return 'text';
}

/** The last id the table's sequence handed out (0 when none yet): kept so that ids of deleted rows stay unused. */
export async function lastIssuedId(db: Executor, table: TableInfo): Promise<number> {
  if (!table.sequenceColumn) return 0;
  if (isPostgres(db)) {
    const { rows } = (await db.raw('select pg_sequence_last_value(pg_get_serial_sequence(?, ?)::regclass) as last', [
      quoteIdentifier(table.name),
      table.sequenceColumn,
    ])) as { rows: Array<{ last: string | null }> };
    return Number(rows[0]?.last ?? 0);
  }
  const rows = (await db.raw('select seq from sqlite_sequence where name = ?', [table.name])) as Array<{ seq: number }>;
  return Number(rows[0]?.seq ?? 0);
}

/** Moves the table's sequence so that the next id is past both `lastId` and every id present. */
export async function advanceSequence(db: Executor, table: TableInfo, lastId: number): Promise<void> {
  const column = table.sequenceColumn;
  if (!column) return;
  const [{ max }] = (await db(table.name).max({ max: column })) as Array<{ max: unknown }>;
  const last = Math.max(Number(max ?? 0), lastId);
  if (isPostgres(db)) {
    // setval(…, 1, false): the next id is 1; setval(…, n, true): the next is n + 1
    await db.raw('select setval(pg_get_serial_sequence(?, ?)::regclass, ?, ?)', [
      quoteIdentifier(table.name),
      column,
      Math.max(last, 1),
      last > 0,
    ]);
  } else if (last > 0) {
    const updated = (await db.raw('update sqlite_sequence set seq = ? where name = ? returning name', [
      last,
      table.name,
    ])) as unknown[];
    if (!updated.length) await db.raw('insert into sqlite_sequence (name, seq) values (?, ?)', [table.name, last]);
  }
}

/** A table name as PostgreSQL's text-to-identifier functions read it (quoted: exact case). */
function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

/** Tables ordered so that each comes after the tables it references (by name among equals; cycles at the end). */
export function inDependencyOrder(tables: TableInfo[]): TableInfo[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const done = new Set<string>();
  const ordered: TableInfo[] = [];
  const pending = [...tables].sort((a, b) => (a.name < b.name ? -1 : 1));
  while (pending.length) {
    const index = pending.findIndex((t) => t.references.every((r) => done.has(r) || !byName.has(r)));
    const [next] = pending.splice(index === -1 ? 0 : index, 1);
    ordered.push(next);
    done.add(next.name);
  }
  return ordered;
}
