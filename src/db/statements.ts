/**
 * Statements built with Knex once per query shape and then run with new values: Knex builds and compiles a query
 * in ~40 µs, more than SQLite takes to run a point read from a prepared statement (~8 µs). A repository writes
 * its query as usual, with Knex, inside `statement((db, ...args) => …)`; the first run of each shape (the
 * dialect and the lengths of list arguments) builds it with placeholder values, notes where each value lands among
 * the bindings, and keeps the SQL. Later runs only bind.
 *
 * The build function must pass its arguments into the query untouched (no arithmetic, no `new Set`, no branching on
 * their values) and must not use them in `limit`/`offset`; a shape that breaks this fails on its first run.
 *
 * Running: on SQLite, when the one connection is idle (no transaction holds it), directly on better-sqlite3's
 * prepared statement, synchronously, so nothing can interleave; on PostgreSQL as a named prepared statement on a
 * pooled connection (parsed and planned once per connection); inside a transaction, through the transaction.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Executor } from './types';
import { isPostgres } from './dialect';

type Scalar = string | number | boolean | null;
export type Arg = Scalar | readonly Scalar[];

interface Compiled {
  sql: string;
  /** PostgreSQL: `$n` placeholders, and the name of the prepared statement. */
  native: string;
  name: string;
  /** Per binding: which argument (and element) supplies it, or the constant the builder put there. */
  slots: Array<{ arg: number; index?: number } | { value: unknown }>;
}

export interface Statement<A extends Arg[]> {
  /** The rows of the query for these values. */
  all<R = Record<string, unknown>>(db: Executor, ...args: A): Promise<R[]>;
}

const MARK = '\u0001';

export function statement<A extends Arg[]>(build: (db: Executor, ...args: A) => Knex.QueryBuilder): Statement<A> {
  const shapes = new Map<string, Compiled>();
  return {
    async all<R>(db: Executor, ...args: A): Promise<R[]> {
      const postgres = isPostgres(db);
      const key = `${postgres ? 'pg' : 'sqlite'}|${args.map((a) => (Array.isArray(a) ? a.length : '')).join(',')}`;
      let compiled = shapes.get(key);
      if (!compiled) shapes.set(key, (compiled = compile(db, build, args)));
      const values = compiled.slots.map((slot) => ('value' in slot ? slot.value : slotValue(args, slot)));
      return (postgres ? runPostgres(db, compiled, values) : runSqlite(db, compiled, values)) as Promise<R[]>;
    },
  };
}

function slotValue(args: Arg[], { arg, index }: { arg: number; index?: number }): Scalar {
  const value = args[arg];
  return index === undefined ? (value as Scalar) : (value as readonly Scalar[])[index];
}

function compile<A extends Arg[]>(
  db: Executor,
  build: (db: Executor, ...args: A) => Knex.QueryBuilder,
  args: A,
): Compiled {
  const marks = args.map((a, i) =>
    Array.isArray(a) ? a.map((_, j) => `${MARK}${i}.${j}${MARK}`) : `${MARK}${i}${MARK}`,
  ) as unknown as A;
  const query = build(db, ...marks).toSQL();
  const slots = query.bindings.map((binding) => {
    if (typeof binding !== 'string' || !binding.includes(MARK)) return { value: binding };
    const match = new RegExp(`^${MARK}(\\d+)(?:\\.(\\d+))?${MARK}$`).exec(binding);
    if (!match) throw new Error(`statement: an argument was changed inside the builder (${query.sql})`);
    return { arg: Number(match[1]), index: match[2] === undefined ? undefined : Number(match[2]) };
  });
  const native = query.toNative().sql;
  return { sql: query.sql, native, name: `s_${createHash('sha1').update(native).digest('hex').slice(0, 20)}`, slots };
}

// ---- SQLite

interface SqliteStatement {
  all(...values: unknown[]): unknown[];
}
interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
}

/** The one connection of each SQLite database (db/knex.ts registers it when the pool creates it). */
const sqliteConnections = new WeakMap<object, () => SqliteConnection | undefined>();

export function registerSqliteConnection(client: object, connection: () => SqliteConnection | undefined): void {
  sqliteConnections.set(client, connection);
}

interface Pool {
  numUsed(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
}

async function runSqlite(db: Executor, compiled: Compiled, values: unknown[]): Promise<unknown[]> {
  const bound = values.map((v) => (typeof v === 'boolean' ? Number(v) : v)); // as Knex binds them
  const pool = db.client.pool as Pool | undefined;
  const connection = db.isTransaction ? undefined : sqliteConnections.get(db.client)?.();
  if (connection && pool && pool.numUsed() === 0 && pool.numPendingAcquires() === 0 && pool.numPendingCreates() === 0) {
    return connection.prepare(compiled.sql).all(...bound);
  }
  return (await db.raw(compiled.sql, bound as Knex.Value[])) as unknown[];
}

// ---- PostgreSQL

interface PgConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}
interface PgClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<void>;
}

async function runPostgres(db: Executor, compiled: Compiled, values: unknown[]): Promise<unknown[]> {
  if (db.isTransaction) return ((await db.raw(compiled.sql, values as Knex.Value[])) as { rows: unknown[] }).rows;
  const client = db.client as unknown as PgClient;
  const connection = await client.acquireConnection();
  try {
    return (await connection.query({ name: compiled.name, text: compiled.native, values })).rows;
  } finally {
    await client.releaseConnection(connection);
  }
}
