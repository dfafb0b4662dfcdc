/**
 * SQLite transactions that take the write lock when they begin (`BEGIN IMMEDIATE`), for every caller: the server,
 * its background jobs and every CLI command ([D66](../../docs/decisions.md#d66)).
 *
 * Knex begins SQLite transactions with a deferred `BEGIN`: the transaction reads from a snapshot and asks for the
 * write lock at its first write. When another process (a CLI command beside the server) has committed since that
 * snapshot, SQLite cannot let it write (SQLITE_BUSY_SNAPSHOT), and the busy timeout does not help: the transaction
 * fails with `database is locked`. Asking for the lock at `BEGIN` instead means the snapshot is taken under the lock,
 * so a transaction that began never fails for a lock. Waiting for it is done here, a few milliseconds at a time with
 * the event loop free (the busy timeout would block the whole process in better-sqlite3's synchronous call).
 *
 * SQLite's lock is not fair: a process writing back to back (an import) gives the lock up only between two of its
 * transactions, for microseconds, and a waiter that tries every few milliseconds could wait for ever. So a waiter
 * says so, by touching a file beside the database (`<file>-waiting`, beside `-wal` and `-shm`), and a connection
 * about to begin that sees a new touch since it last looked first pauses for longer than a waiter's pause.
 *
 * Read-only connections and transactions begun with `{ readOnly: true }` (the dump's snapshot) keep the deferred
 * `BEGIN`: they never write, and must not stop writers.
 */
import fs from 'node:fs';
import type { Knex } from 'knex';

/**
 * How long a transaction waits by default for another connection's write lock before it fails with SQLITE_BUSY
 * (answered 503 `rest_database_busy`: http/error-handler.ts).
 */
export const WRITE_LOCK_WAIT_MS = 10_000;
/** The connection's busy timeout for single statements outside transactions (reads under WAL rarely wait). */
export const BUSY_TIMEOUT_MS = 5_000;
/** A waiter's longest pause between two tries; a writer that sees a waiter lets it go first for longer. */
const MAX_PAUSE_MS = 10;
const GIVE_WAY_MS = 3 * MAX_PAUSE_MS;

interface Connection {
  readonly name: string;
  readonly memory: boolean;
  readonly readonly: boolean;
  exec(sql: string): unknown;
  pragma(sql: string): unknown;
}

interface TransactionInternals {
  readOnly?: boolean;
  query(conn: Connection, sql: string): Promise<unknown>;
}
type TransactionClass = new (...args: unknown[]) => TransactionInternals;

// knex has no option for the kind of BEGIN: its own SQLite transaction class, with `begin` replaced
const SqliteTransaction: TransactionClass = require('knex/lib/dialects/sqlite3/execution/sqlite-transaction');

class ImmediateTransaction extends SqliteTransaction {
  declare client: Knex.Client;

  begin(conn: Connection): Promise<unknown> {
    if (this.readOnly || conn.readonly) return this.query(conn, 'BEGIN;');
    return beginImmediate(conn, lockWaits.get(this.client) ?? WRITE_LOCK_WAIT_MS);
  }
}

/** How long each connection's transactions wait for the write lock (set for the client when it is made). */
const lockWaits = new WeakMap<Knex.Client, number>();

/**
 * Makes every top-level transaction of this better-sqlite3 Knex client begin as above (savepoints are unchanged),
 * waiting up to `waitMs` for the write lock.
 */
export function beginWritesImmediately(client: Knex.Client, waitMs = WRITE_LOCK_WAIT_MS): void {
  lockWaits.set(client, waitMs);
  client.transaction = function (this: Knex.Client, ...args: unknown[]) {
    return new ImmediateTransaction(this, ...args);
  } as unknown as Knex.Client['transaction'];
}

const isBusy = (err: unknown) => (err as { code?: string } | null)?.code?.startsWith('SQLITE_BUSY') === true;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `BEGIN IMMEDIATE`, tried without blocking and again after a short pause while another connection writes. */
async function beginImmediate(conn: Connection, waitMs: number): Promise<void> {
  const signal = conn.memory ? undefined : new WaitSignal(`${conn.name}-waiting`);
  if (signal?.someoneWaits(conn)) await sleep(GIVE_WAY_MS);
  const deadline = performance.now() + waitMs;
  for (let pause = 1; ; pause = Math.min(2 * pause, MAX_PAUSE_MS)) {
    if (tryBegin(conn)) return;
    if (performance.now() > deadline) {
      throw Object.assign(new Error(`database is locked (waited ${waitMs} ms for the write lock)`), {
        code: 'SQLITE_BUSY',
      });
    }
    signal?.wait(conn);
    await sleep(pause);
  }
}

/** Each connection's busy timeout, when not the default (restored after each try). */
const busyTimeouts = new WeakMap<object, number>();

/** Sets a connection's busy timeout for single statements: the default, or less when the lock wait is shorter. */
export function setBusyTimeout(conn: Pick<Connection, 'pragma'>, lockWaitMs = WRITE_LOCK_WAIT_MS): void {
  const timeout = Math.min(BUSY_TIMEOUT_MS, lockWaitMs);
  busyTimeouts.set(conn, timeout);
  conn.pragma(`busy_timeout = ${timeout}`);
}

function tryBegin(conn: Connection): boolean {
  conn.pragma('busy_timeout = 0');
  try {
    conn.exec('BEGIN IMMEDIATE');
    return true;
  } catch (err) {
    if (isBusy(err)) return false;
    throw err;
  } finally {
    conn.pragma(`busy_timeout = ${busyTimeouts.get(conn) ?? BUSY_TIMEOUT_MS}`);
  }
}

/** The last touch of the waiting file each connection has seen (or made itself). */
const seen = new WeakMap<Connection, number>();

/** The file waiters touch: its modification time changes with every touch (compared for change, not order). */
class WaitSignal {
  constructor(private readonly file: string) {}

  /** Whether another connection touched the file since this one last looked. */
  someoneWaits(conn: Connection): boolean {
    const touched = this.touched();
    if (touched === undefined || touched === seen.get(conn)) return false;
    seen.set(conn, touched);
    return true;
  }

  /** Touches the file (creating it), and notes the touch as this connection's own. */
  wait(conn: Connection): void {
    const now = new Date();
    try {
      fs.utimesSync(this.file, now, now);
    } catch {
      fs.writeFileSync(this.file, '', { mode: 0o600 });
    }
    seen.set(conn, this.touched() as number);
  }

  private touched(): number | undefined {
    try {
      return fs.statSync(this.file).mtimeMs;
    } catch {
      return undefined; // no connection ever waited
    }
  }
}
