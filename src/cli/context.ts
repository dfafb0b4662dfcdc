/** What every command shares: the database of DATABASE_URL, the operator as the audit trail names them, output. */
import os from 'node:os';
import { loadConfig } from '../config';
import { createDb } from '../db/knex';
import { migrate } from '../db/migrate';
import type { Db } from '../db/types';
import type { Actor } from '../core/audit';
import { findUserByLogin, listUsers, type UserRow } from '../users/repository';
import { usage } from './errors';

/** The operator at the CLI, as the audit trail records them. */
export const OPERATOR: Actor = {
  userId: null,
  login: os.userInfo().username,
  appPassword: null,
  address: null,
  via: 'cli',
};

/**
 * Runs `work` on the database of DATABASE_URL: migrated first for a writer (so a fresh database works), opened
 * read-only (SQLite) for a reader, whose write beside the server would fail the server's next write with BUSY.
 */
export async function withDatabase<T>(
  mode: 'read' | 'write',
  work: (db: Db, databaseUrl: string) => Promise<T>,
): Promise<T> {
  const { databaseUrl } = loadConfig();
  const db = createDb(databaseUrl, { readonly: mode === 'read' });
  try {
    if (mode === 'write') await migrate(db);
    return await work(db, databaseUrl);
  } finally {
    await db.destroy();
  }
}

/** The user with this login, or a usage error that says how to find the right one. */
export async function userByLogin(db: Db, login: string): Promise<UserRow> {
  const user = await findUserByLogin(db, login);
  if (!user) throw usage(`no user with login "${login}" (see them with: cli user list)`);
  return user;
}

/** `--author` when given, else the one administrator; with none or several, a usage error saying what to do. */
export async function authorOrOnlyAdministrator(db: Db, login: string | undefined): Promise<UserRow> {
  if (login !== undefined) return userByLogin(db, login);
  const administrators = (await listUsers(db)).filter((u) => u.role === 'administrator');
  if (administrators.length === 1) return userByLogin(db, administrators[0].login);
  throw usage(
    administrators.length === 0
      ? '--author LOGIN is required: there is no administrator to default to (create one with: cli user create)'
      : `--author LOGIN is required: there are ${administrators.length} administrators ` +
          `(${administrators.map((u) => u.login).join(', ')}), name one`,
  );
}

/** One JSON line on stdout: every result of the CLI. */
export function print(value: object): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** Seconds since `started` (performance.now()), to the millisecond. */
export const secondsSince = (started: number) => Math.round(performance.now() - started) / 1000;

/** The "Examples:" block of a command's help. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}`;
}
