/** Builds the Knex instance for DATABASE_URL: SQLite (embedded default) or PostgreSQL (several API nodes). */
import fs from 'node:fs';
import path from 'node:path';
import knex from 'knex';
import type { Db } from './types';
import { registerSqliteConnection } from './statements';
import { beginWritesImmediately, setBusyTimeout } from './sqlite-transaction';

export interface DbOptions {
  /** PostgreSQL schema to work in (tests use a fresh schema per run). */
  schema?: string;
  poolMax?: number;
  /**
   * SQLite: open the file read-only and change nothing on connecting (no journal mode, no statistics), so that a
   * reader beside a running server (export, backup) never writes and never holds the write lock.
   */
  readonly?: boolean;
  /**
   * Longest wait for another connection's lock before a statement fails as busy (answered 503): on SQLite the
   * write lock (10 s by default, db/sqlite-transaction.ts); on PostgreSQL `lock_timeout` (none by default: a
   * node waiting for another's migration must not give up).
   */
  lockWaitMs?: number;
}

export function isSqliteUrl(url: string): boolean {
  return url.startsWith('sqlite:');
}

export function createDb(url: string, options: DbOptions = {}): Db {
  if (isSqliteUrl(url)) return sqlite(url.slice('sqlite:'.length), options);
  if (/^postgres(ql)?:\/\//.test(url)) return postgres(url, options);
  throw new Error('DATABASE_URL must start with sqlite: or postgres://');
}

function sqlite(filename: string, { readonly = false, lockWaitMs }: DbOptions): Db {
  if (filename !== ':memory:' && !readonly) fs.mkdirSync(path.dirname(path.resolve(filename)), { recursive: true });
  let connection: SqliteConnection | undefined;
  const db = knex({
    client: 'better-sqlite3',
    connection: { filename, options: { readonly } },
    useNullAsDefault: true,
    // one connection: SQLite has one writer, and WAL lets readers of other processes go on
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: SqliteConnection, done: (err: Error | null, conn: unknown) => void) {
        cachePreparedStatements(conn);
        connection = conn;
        setBusyTimeout(conn, lockWaitMs);
        if (readonly) return done(null, conn);
        conn.pragma('journal_mode = WAL');
        conn.pragma('synchronous = FULL'); // an answered write survives a power cut, not just a crash
        conn.pragma('foreign_keys = ON');
        // planner statistics where they are missing or stale (SQLite's advice for long-lived connections). Not
        // sampled: `analysis_limit` estimates of two-valued columns made the list index look 1000× too selective
        // and put every venue, organizer and geolocation list on a scan of the window (~4 s once at 1 M events).
        conn.pragma('analysis_limit = 0');
        conn.pragma('optimize = 0x10002');
        done(null, conn);
      },
    },
  });
  registerSqliteConnection(db.client, () => connection);
  beginWritesImmediately(db.client, lockWaitMs); // another process may write the file too: db/sqlite-transaction.ts
  return db;
}

interface SqliteConnection {
  pragma(sql: string): unknown;
  prepare(sql: string): { all(...values: unknown[]): unknown[] };
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Knex prepares every query anew; with the same few hundred SQL texts (parameters are bound, never inlined) the
 * compiled statements can be reused, which better-sqlite3 allows once a statement has finished running.
 */
function cachePreparedStatements(conn: SqliteConnection): void {
  const prepare = conn.prepare.bind(conn);
  const cache = new Map<string, ReturnType<SqliteConnection['prepare']>>();
  conn.prepare = (sql: string) => {
    let statement = cache.get(sql) as ReturnType<SqliteConnection['prepare']> | undefined;
    if (statement === undefined) {
      statement = prepare(sql);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      cache.set(sql, statement);
    }
    return statement;
  };
}

function postgres(url: string, { schema, poolMax = 10, lockWaitMs }: DbOptions): Db {
  return knex({
    client: 'pg',
    connection: url,
    searchPath: schema ? [schema] : undefined,
    pool: {
      min: 0,
      max: poolMax,
      ...(lockWaitMs === undefined ? {} : { afterCreate: lockTimeout(lockWaitMs) }),
    },
  });
}

type PgConnection = { query(sql: string, done: (err: Error | null) => void): void };

function lockTimeout(ms: number) {
  return (conn: PgConnection, done: (err: Error | null, conn: PgConnection) => void) =>
    conn.query(`set lock_timeout = ${Math.trunc(ms)}`, (err) => done(err, conn));
}
