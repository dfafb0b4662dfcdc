/**
 * The wake-up of the change stream when another process appends to the change feed. The feed (`changes`) stays the
 * truth; a signal only says "look again", so a lost or extra signal costs a query, never a change.
 *
 * - PostgreSQL: the appending transaction sends `NOTIFY calendar_changes` with its schema as payload; PostgreSQL
 *   delivers it at commit, and only if it commits. One dedicated connection per process listens (several schemas
 *   may share a database, so a signal for another schema is ignored). A lost connection is reopened, then a
 *   signal is given, since notifications sent while it was away are lost.
 * - SQLite: one writer per file and no notifications: the data version (db/data-version.ts), read every `pollMs`
 *   by one timer per process while someone watches, moves on every commit of any process.
 */
import type { Knex } from 'knex';
import { Client, type ClientConfig } from 'pg';
import { isPostgres } from '../dialect';
import { dataVersion } from '../data-version';
import type { Db } from '../types';

const CHANNEL = 'calendar_changes';
const RECONNECT_MS = 1000;

/** Transactions that have signalled already: one signal per commit is enough, however many appends it makes. */
const signalled = new WeakSet<Knex.Transaction>();

/** Called by the feed's append, in its transaction: other processes' watchers wake when it commits. */
export async function signalChanges(trx: Knex.Transaction): Promise<void> {
  if (!isPostgres(trx) || signalled.has(trx)) return;
  signalled.add(trx);
  await trx.raw('select pg_notify(?, current_schema())', [CHANNEL]);
}

export interface ChangeWatch {
  stop(): Promise<void>;
}

/** Calls `onSignal` (soon) after another process may have appended to the change feed, until stopped. */
export async function watchChanges(db: Db, onSignal: () => void, { pollMs }: { pollMs: number }): Promise<ChangeWatch> {
  return isPostgres(db) ? listen(db, onSignal) : poll(db, onSignal, pollMs);
}

async function poll(db: Db, onSignal: () => void, pollMs: number): Promise<ChangeWatch> {
  let seen = await dataVersion(db);
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    dataVersion(db)
      .then((version) => {
        if (version !== seen) onSignal();
        seen = version;
      })
      .catch(() => undefined) // the database is away: the next tick tries again
      .finally(() => {
        busy = false;
      });
  }, pollMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
    },
  };
}

async function listen(db: Db, onSignal: () => void): Promise<ChangeWatch> {
  const [{ schema }] = (await db.raw('select current_schema() as schema')).rows as Array<{ schema: string }>;
  const setting = db.client.config.connection as string | ClientConfig;
  const config: ClientConfig = typeof setting === 'string' ? { connectionString: setting } : setting;
  let client: Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const open = async (): Promise<void> => {
    const next = new Client(config);
    next.on('notification', (message) => {
      if (message.channel === CHANNEL && message.payload === schema) onSignal();
    });
    next.on('error', () => reopen(next));
    next.on('end', () => reopen(next));
    await next.connect();
    await next.query(`listen ${CHANNEL}`);
    client = next;
  };
  const reopen = (lost: Client) => {
    if (stopped || client !== lost) return;
    client = undefined;
    lost.end().catch(() => undefined);
    const attempt = () => {
      retry = undefined;
      if (stopped) return;
      open().then(onSignal, () => {
        retry = setTimeout(attempt, RECONNECT_MS);
        retry.unref();
      });
    };
    retry = setTimeout(attempt, RECONNECT_MS);
    retry.unref();
  };
  await open();
  return {
    async stop() {
      stopped = true;
      clearTimeout(retry);
      const last = client;
      client = undefined;
      await last?.end().catch(() => undefined);
    },
  };
}
