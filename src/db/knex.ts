/** Builds the Knex instance for DATABASE_URL: SQLite (embedded default) or PostgreSQL (several API nodes). */
import fs from 'node:fs';
import path from 'node:path';
import knex, { Knex } from 'knex';

export type Db = Knex;
/** What repositories run queries on: the database or an open transaction. */
export type Executor = Knex | Knex.Transaction;

export interface DbOptions {
  /** PostgreSQL schema to work in (tests use a fresh schema per run). */
  schema?: string;
  poolMax?: number;
}

export function isSqliteUrl(url: string): boolean {
  return url.startsWith('sqlite:');
}

export function createDb(url: string, options: DbOptions = {}): Db {
  if (isSqliteUrl(url)) return sqlite(url.slice('sqlite:'.length));
  if (/^postgres(ql)?:\/\//.test(url)) return postgres(url, options);
  throw new Error('DATABASE_URL must start with sqlite: or postgres://');
}

function sqlite(filename: string): Db {
  if (filename !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(filename)), { recursive: true });
  return knex({
    client: 'better-sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    // one connection: SQLite has one writer, and WAL lets readers of other processes go on
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: { pragma(sql: string): unknown }, done: (err: Error | null, conn: unknown) => void) {
        conn.pragma('journal_mode = WAL');
        conn.pragma('synchronous = FULL'); // an answered write survives a power cut, not just a crash
        conn.pragma('busy_timeout = 5000');
        conn.pragma('foreign_keys = ON');
        done(null, conn);
      },
    },
  });
}

function postgres(url: string, { schema, poolMax = 10 }: DbOptions): Db {
  return knex({
    client: 'pg',
    connection: url,
    searchPath: schema ? [schema] : undefined,
    pool: { min: 0, max: poolMax },
  });
}
