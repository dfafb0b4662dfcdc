/** The database engines every repository and route test runs on. */
import { randomBytes } from 'node:crypto';
import knex from 'knex';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb, type DbOptions } from '../../src/db/knex';
import type { Db } from '../../src/db/types';

export type Engine = 'sqlite' | 'postgres';

export const ENGINES: Engine[] = process.env.TEST_POSTGRES === '1' ? ['sqlite', 'postgres'] : ['sqlite'];

export interface TestDatabase {
  db: Db;
  url: string;
  /** PostgreSQL schema made for this test file. */
  schema?: string;
  drop(): Promise<void>;
}

/**
 * A fresh, empty database: SQLite in memory, or a new PostgreSQL schema dropped afterwards. With `lockWaitMs`, the
 * lock wait is that short, and SQLite is a temporary file that another connection can lock.
 */
export async function freshDatabase(
  engine: Engine,
  options: Pick<DbOptions, 'lockWaitMs'> = {},
): Promise<TestDatabase> {
  if (engine === 'sqlite' && options.lockWaitMs !== undefined) return sqliteFile(options.lockWaitMs);
  if (engine === 'sqlite') {
    const db = createDb('sqlite::memory:');
    return { db, url: 'sqlite::memory:', drop: () => db.destroy() };
  }
  const url = process.env.TEST_DATABASE_URL as string;
  const schema = `test_${process.env.JEST_WORKER_ID ?? 0}_${randomBytes(6).toString('hex')}`;
  const admin = knex({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  await admin.raw('create schema ??', [schema]);
  await admin.destroy();
  const db = createDb(url, { schema, ...options });
  return {
    db,
    url,
    schema,
    async drop() {
      await db.raw('drop schema if exists ?? cascade', [schema]);
      await db.destroy();
    },
  };
}

async function sqliteFile(lockWaitMs: number): Promise<TestDatabase> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'calendar-test-'));
  const url = `sqlite:${path.join(dir, 'calendar.sqlite')}`;
  const db = createDb(url, { lockWaitMs });
  return {
    db,
    url,
    async drop() {
      await db.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A DATABASE_URL for a child process (the server, the CLI) on a fresh database: a temporary SQLite file, or a new
 * PostgreSQL schema selected through the connection's `search_path`.
 */
export async function freshDatabaseUrl(engine: Engine): Promise<{ url: string; drop(): Promise<void> }> {
  if (engine === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'calendar-test-'));
    return {
      url: `sqlite:${path.join(dir, 'calendar.sqlite')}`,
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const database = await freshDatabase('postgres');
  await database.db.destroy();
  const separator = database.url.includes('?') ? '&' : '?';
  return {
    url: `${database.url}${separator}options=${encodeURIComponent(`-c search_path=${database.schema}`)}`,
    async drop() {
      const admin = knex({ client: 'pg', connection: database.url, pool: { min: 0, max: 1 } });
      await admin.raw('drop schema if exists ?? cascade', [database.schema as string]);
      await admin.destroy();
    },
  };
}
