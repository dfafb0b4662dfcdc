/**
 * Backups while the service keeps serving. SQLite: the online backup API (better-sqlite3 `backup()`) copies the
 * pages from one read snapshot (WAL: writers go on meanwhile), then the copy must pass `integrity_check` and
 * `foreign_key_check`. PostgreSQL: the portable dump from one repeatable-read snapshot (`pg_dump` for a whole
 * cluster: README). Either way the file appears under its name only when complete, readable by its owner only.
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
    createPrivate(partial); // SQLite would create it 0644 (and its journal alike): it keeps the mode of a file it finds
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
    const out = fs.createWriteStream(partial, { flags: 'wx', mode: PRIVATE });
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

/** Backups hold password hashes, event passwords and (without WEBHOOK_SECRET_KEY) webhook secrets: owner only. */
const PRIVATE = 0o600;

/** An empty file only the owner may read and write, made so from the start (never readable by others meanwhile). */
function createPrivate(file: string): void {
  fs.closeSync(fs.openSync(file, 'wx', PRIVATE));
}

/**
 * Writes through `work` to a partial file beside `file` (private, named after this process), flushed to disk, then
 * renames it and flushes the directory, so the new name survives a power cut: never a half file under the name.
 * Partial files that a killed run left for the same `file` are removed first.
 */
async function intoPlace<T>(file: string, work: (partial: string) => Promise<T>): Promise<T> {
  const target = path.resolve(file);
  removeStalePartials(target);
  const partial = partialName(target, process.pid);
  try {
    const result = await work(partial);
    fsync(partial);
    fs.renameSync(partial, target);
    fsync(path.dirname(target));
    return result;
  } finally {
    for (const leftover of [partial, `${partial}-journal`]) fs.rmSync(leftover, { force: true });
  }
}

function fsync(file: string): void {
  const fd = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

const partialName = (target: string, pid: number) =>
  path.join(path.dirname(target), `.${path.basename(target)}.${pid}.partial`);

/** `.<target's name>.<process id>.partial`, and the rollback journal SQLite keeps beside it while it writes. */
const PARTIAL = /^\.(.+)\.(\d+)\.partial(-journal)?$/;

/**
 * Removes what a killed run for `target` left: only files named as this service names its partials for that very
 * target, and only those of a process that is gone (or of this one's id, reused: this run has made nothing yet),
 * so that a backup of the same target running in another process keeps its file.
 */
function removeStalePartials(target: string): void {
  const dir = path.dirname(target);
  for (const name of fs.readdirSync(dir)) {
    const match = PARTIAL.exec(name);
    if (!match || match[1] !== path.basename(target)) continue;
    const pid = Number(match[2]);
    if (pid !== process.pid && isRunning(pid)) continue;
    const leftover = path.join(dir, name);
    if (fs.lstatSync(leftover).isFile()) fs.rmSync(leftover, { force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0); // signal 0: only asks whether the process exists
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // it exists, under another user
  }
}
