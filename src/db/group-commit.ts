/**
 * Group commit for SQLite. With `synchronous = FULL` every commit waits for the disk to confirm it (fsync): a few
 * hundred commits a second, however fast the rest is. Writes that arrive while others run are queued and then run
 * together in one transaction, each inside a savepoint of its own, so a write that fails rolls back alone; one
 * commit then makes the whole group durable, and only then is any of them answered. The writes still run one after
 * another on the one connection, so each sees the ones before it, exactly as if each had committed alone.
 *
 * A failed write ends its group: the writes behind it wait for the next one. Some errors (`RAISE(ROLLBACK)`, a full
 * disk) end the whole transaction, and SQLite would run the next savepoint as a transaction of its own, committed
 * at once, while its group then fails to commit: a write reported failed that was in fact kept.
 *
 * PostgreSQL commits concurrent transactions together by itself (and runs them in parallel): there `db.transaction`.
 */
import type { Knex } from 'knex';

type Work<T> = (trx: Knex.Transaction) => Promise<T>;
interface Queued {
  work: Work<unknown>;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}
type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };

/** Bounds how long the first write of a group waits for the last one's work. */
const MAX_GROUP = 64;

const queues = new WeakMap<Knex, Queued[]>();

/** Runs `work` in a transaction of its own, or in a savepoint of a transaction shared with concurrent writes. */
export function groupedTransaction<T>(db: Knex, work: Work<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let queue = queues.get(db);
    const idle = !queue;
    if (!queue) queues.set(db, (queue = []));
    queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
    // the group starts once the requests that have arrived meanwhile have reached this point too: a request runs
    // to its transaction without leaving the microtask queue, so the next turn of the event loop is the earliest
    if (idle) setImmediate(() => void drain(db, queue as Queued[]));
  });
}

async function drain(db: Knex, queue: Queued[]): Promise<void> {
  try {
    while (queue.length) {
      const group = queue.splice(0, MAX_GROUP);
      const outcomes = await commitGroup(db, group);
      for (const [i, item] of group.entries()) settle(item, outcomes[i]);
      queue.unshift(...group.slice(outcomes.length)); // not run: behind a failure
    }
  } finally {
    queues.delete(db);
  }
}

function settle(item: Queued, outcome: Outcome | undefined): void {
  if (outcome?.ok) item.resolve(outcome.value);
  else if (outcome) item.reject(outcome.err);
}

/**
 * One transaction for the group, a savepoint per write, up to the first that fails; a failed commit fails every write
 * that ran. The outcomes are those of the writes that ran, in order.
 */
async function commitGroup(db: Knex, group: Queued[]): Promise<Outcome[]> {
  if (group.length === 1) {
    try {
      return [{ ok: true, value: await db.transaction(group[0].work) }];
    } catch (err) {
      return [{ ok: false, err }];
    }
  }
  const outcomes: Outcome[] = [];
  try {
    await db.transaction(async (trx) => {
      for (const item of group) {
        try {
          outcomes.push({ ok: true, value: await trx.transaction(item.work) });
        } catch (err) {
          outcomes.push({ ok: false, err });
          break;
        }
      }
    });
    return outcomes;
  } catch (err) {
    return outcomes.map(() => ({ ok: false, err }));
  }
}
