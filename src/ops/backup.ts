/**
 * Backups while the service keeps serving. SQLite: the online backup API (better-sqlite3 `backup()`) copies the
 * pages from one read snapshot (WAL: writers go on meanwhile), then the copy must pass `integrity_check` and
 * `foreign_key_check`. PostgreSQL: the portable dump from one repeatable-read snapshot (`pg_dump` for a whole
 * cluster: README). Either way the file appears under its name only when complete.
 */
import fs from 'node:fs';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import Database from 'better-sqlite3';
import type { Db } from '../db/types';
import { isSqliteUrl } from '../db/knex';
import { exportDump, type DumpOptions, type TableSummary } from './dump';

export type BackupResult =
  | { engine: 'sqlite'; file: string; pages: number; integrity: 'ok' }
  | { engine: 'postgres'; file: string; tables: Record<string, TableSummary> };

export async function backup(
  db: Db,
  databaseUrl: string,
  file: string,
  options: DumpOptions = {},
): Promise<BackupResult> {
  if (isSqliteUrl(databaseUrl))
    return { engine: 'sqlite', file, ...(await backupSqlite(databaseUrl.slice('sqlite:'.length), file)) };
  return { engine: 'postgres', file, tables: await exportToFile(db, file, options) };
}

export async function backupSqlite(source: string, file: string): Promise<{ pages: number; integrity: 'ok' }> {
  if (source === ':memory:' || !fs.existsSync(source)) throw new Error(`no SQLite database file at ${source}`);
  return intoPlace(file, async (partial) => {
    const db = new Database(source, { readonly: true, fileMustExist: true });
    let pages: number;
    try {
      db.pragma('busy_timeout = 5000');
      // everything in one step after the first: one read snapshot, and no restarts when the server writes between steps
      ({ totalPages: pages } = await db.backup(partial, { progress: () => 0x7fffffff }));
    } finally {
      db.close();
    }
    const copy = new Database(partial, { fileMustExist: true });
    try {
      const integrity = copy.pragma('integrity_check', { simple: true });
      const orphans = (copy.pragma('foreign_key_check') as unknown[]).length;
      if (integrity !== 'ok' || orphans > 0)
        throw new Error(
          `the backup copy failed its checks (integrity_check: ${String(integrity)}, ` +
            `foreign-key violations: ${orphans})`,
        );
    } finally {
      copy.close();
    }
    return { pages, integrity: 'ok' as const };
  });
}

/** The portable dump written to `file`. */
export function exportToFile(db: Db, file: string, options: DumpOptions = {}): Promise<Record<string, TableSummary>> {
  return intoPlace(file, async (partial) => {
    const out = fs.createWriteStream(partial);
    try {
      const summary = await exportDump(db, out, options);
      out.end();
      await finished(out);
      return summary;
    } catch (err) {
      out.destroy();
      throw err;
    }
  });
}

/** Writes through `work` to a partial file beside `file`, flushed to disk, then renames it: never a half file. */
async function intoPlace<T>(file: string, work: (partial: string) => Promise<T>): Promise<T> {
  const target = path.resolve(file);
  const partial = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.partial`);
  try {
    const result = await work(partial);
    const fd = fs.openSync(partial, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(partial, target);
    return result;
  } finally {
    fs.rmSync(partial, { force: true });
  }
}
