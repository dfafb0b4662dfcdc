/**
 * Scheduled posts published at their date (docs/decisions.md D118): events, venues and organizers stored as `future`
 * become `publish` once their publication date has come, each batch in one write of the kernel, so the change feed,
 * the webhooks, the term counts, the audit trail and the stamps (hence every node's cached answers) follow it.
 */
import type { Actor } from '../core/audit';
import { write } from '../core/write';
import type { Db } from '../db/types';
import { utcNow, utcTextToMs } from '../db/dialect';
import { KIND_NAMES, KINDS } from '../kinds/registry';
import type { PostType } from '../resources/posts/repository';
import * as repo from './repository';

/** The kinds that can be scheduled: those stored as posts. */
export const SCHEDULED_KINDS = KIND_NAMES.filter((kind) => KINDS[kind].table === 'posts') as PostType[];

/** The service itself, as the audit trail names it when it publishes. */
export const SYSTEM: Actor = { userId: null, login: null, appPassword: null, address: null, via: 'system' };

/** Posts published per write: a batch's rows stay locked until it commits. */
const BATCH = 100;

/**
 * Publishes every scheduled post due now, by the service's clock; answers how many this call published. Safe on
 * several nodes at once: a post claimed by one is passed over by the others, and the update is conditional, so each
 * post is published, announced and counted once.
 */
export async function publishDue(db: Db): Promise<number> {
  let published = 0;
  for (const kind of SCHEDULED_KINDS) {
    // a read first: a pass with nothing due takes no write lock (SQLite) and opens no write
    while ((await repo.dueQuery(db, kind, utcNow(), 1)).length) {
      const { claimed, done } = await publishBatch(db, kind, utcNow());
      published += done;
      if (claimed < BATCH) break;
    }
  }
  return published;
}

async function publishBatch(db: Db, kind: PostType, at: string): Promise<{ claimed: number; done: number }> {
  return write(db, async (w) => {
    const claimed = await repo.claimDue(w.trx, kind, at, BATCH);
    if (!claimed.length) return { claimed: 0, done: 0 };
    await w.countTermsOf(claimed); // the categories and tags of a published event count it
    const published = await repo.publish(w.trx, claimed, at);
    for (const id of published) w.audit(SYSTEM, 'update', kind, id, { status: { old: 'future', new: 'publish' } });
    w.change(kind, published, 'updated');
    return { claimed: claimed.length, done: published.length };
  });
}

/** When the next scheduled post is due (epoch milliseconds), over every kind; undefined without any. */
export async function nextDue(db: Db): Promise<number | undefined> {
  const dates = await Promise.all(SCHEDULED_KINDS.map((kind) => repo.earliestScheduled(db, kind)));
  const earliest = dates.filter((date): date is string => date !== undefined).sort()[0];
  return earliest === undefined ? undefined : utcTextToMs(earliest);
}
