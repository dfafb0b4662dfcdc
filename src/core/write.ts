/**
 * The write kernel: every service write (events and their series, venues, organizers, categories, tags,
 * application passwords, webhook subscriptions, users at the CLI) runs through `write`, in one transaction:
 *
 *   1. the precondition (`If-Match` / `If-Unmodified-Since`) checked on the record's locked row;
 *   2. the work: the service's own rows, which tells the `Write` what else it touched;
 *   3. the search documents of the records it touched, rebuilt;
 *   4. the counts of the categories and tags of the posts it touched moved by what it changed of them;
 *   5. its audit entries;
 *   6. the stamps of the records it changed raised (not of those it created; and of the terms whose counts moved,
 *      in step 4), which retires every cached representation that shows them (src/cache/, on every node: the
 *      stamps are in the database);
 *      the records it changed are those the work announced and those that show rows it changed (`showing`), found
 *      once the work is done;
 *   7. its changes: the change feed and the webhook outbox (last, since on PostgreSQL they serialise writers
 *      from the first append to the commit: core/outbox.ts).
 *
 * Nothing but this file knows that order, so no write path can skip a step or take them in another order, and the
 * record, its search documents, counts, audit trail, change feed and webhooks commit together or not at all.
 * Once it has committed, the listeners of `afterWrites` hear what it announced (this node's writes only).
 */
import type { Knex } from 'knex';
import type { Config } from '../config';
import type { Db } from '../db/types';
import { lockRows, transactionWithRetry } from '../db/dialect';
import { syncSearch, type SearchOwner } from '../search/documents';
import type { Caller } from '../users/roles';
import { KINDS } from '../kinds/registry';
import { insertAudit, type Actor, type Change, type Operation, type Resource as AuditResource } from './audit';
import { recordChanges, type Action, type Resource } from './outbox';
import { assertPrecondition, type Precondition, type VersionedTable } from './preconditions';
import { raiseStamps } from './stamps';
import { moveCounts, publishedLinks, refreshCounts } from './term-counts';

/** What a service works with: the database and the configuration (an `AppContext` is one). */
export interface Services {
  db: Db;
  config: Readonly<Config>;
}

/** Who writes, and the language the text they send is in (a record is created in it; other languages translate). */
export interface Writer {
  caller: Caller;
  language: string;
}

/** The record a write's precondition is about. */
export interface Guarded {
  table: VersionedTable;
  id: number;
  expect: Precondition | undefined;
}

export interface WriteOptions {
  /** Checked first, on the record's locked row: 412 and nothing written when it does not hold. */
  precondition?: Guarded;
}

/** The records that show rows a write changed, found on its transaction once the work is done. */
export type FindShowing = (trx: Knex.Transaction) => Promise<number[]>;

interface AuditEntry {
  who: Caller | Actor;
  operation: Operation;
  resource: AuditResource;
  id: number | string;
  fields: Record<string, Change>;
}

/** One announcement of a write: these records of one kind were created, updated or deleted. */
export interface Announced {
  resource: Resource;
  ids: number[];
  action: Action;
}

/** Told what a committed write announced (a job that follows this node's writes: src/publishing/). */
export type WriteListener = (announced: readonly Announced[]) => void;

const listeners = new WeakMap<Db, Set<WriteListener>>();

/**
 * Calls `listener` after each write on `db` that announced something commits, on this node only (other nodes'
 * writes are not seen: a listener must not be the only way its job learns of them). Answers the unsubscribe.
 */
export function afterWrites(db: Db, listener: WriteListener): () => void {
  const set = listeners.get(db) ?? new Set<WriteListener>();
  listeners.set(db, set);
  set.add(listener);
  return () => set.delete(listener);
}

/** What a write touched besides its own rows, written by the kernel after the work, in the order above. */
export class Write {
  private readonly searched: Record<SearchOwner, number[]> = { posts: [], terms: [] };
  private readonly made: Record<SearchOwner, Set<number>> = { posts: new Set(), terms: new Set() };
  /** Per term, the published events linked to it among `countedPosts` before the work changed them. */
  private readonly before = new Map<number, number>();
  private readonly countedPosts = new Set<number>();
  private readonly recounted = new Set<number>();
  private readonly audits: AuditEntry[] = [];
  private readonly changes: Announced[] = [];
  private readonly shown = new Map<string, { resource: Resource; find: FindShowing }>();

  constructor(readonly trx: Knex.Transaction) {}

  /**
   * These records' searched text may have changed (or they are gone): their documents are rebuilt (`made`: records
   * this write inserted, in their own language, which have no documents or translations yet).
   */
  search(owner: SearchOwner, ids: number[], { made = false } = {}): void {
    this.searched[owner].push(...ids);
    if (made) for (const id of ids) this.made[owner].add(id);
  }

  /**
   * The links or status of these posts are about to change: what they count now (their published links) is read,
   * and once the work is done each term's count moves by what they count then less what they counted now. Call it
   * before changing them, on every path that changes them: a change it does not see stays in the counts (`made`:
   * posts this write made, which count nothing yet).
   */
  async countTermsOf(postIds: number[], { made = false } = {}): Promise<void> {
    const fresh = [...new Set(postIds)].filter((id) => !this.countedPosts.has(id)).sort((a, b) => a - b);
    if (!fresh.length) return;
    for (const id of fresh) this.countedPosts.add(id);
    if (made) return;
    // PostgreSQL: no other writer changes these posts between this read and the commit (they all come here first,
    // and wait). Their `posts` rows, in id order: those a precondition locks and scheduled publishing claims, so the
    // lock order stays theirs. SQLite has one writer; a grouped write reads the one before it in the shared transaction
    await lockRows(this.trx, 'posts', fresh);
    for (const [id, n] of await publishedLinks(this.trx, fresh)) this.before.set(id, (this.before.get(id) ?? 0) + n);
  }

  /**
   * These terms' counts are recounted from all their links once the work is done: for a change whose before the
   * write cannot read (it walks every link of each term, so only where `countTermsOf` cannot be called in time).
   */
  recountTerms(termIds: number[]): void {
    for (const id of termIds) this.recounted.add(id);
  }

  /** An audit entry: who did what to which record, with the fields it changed (secrets redacted). */
  audit(who: Caller | Actor, operation: Operation, resource: AuditResource, id: number | string, fields = {}): void {
    this.audits.push({ who, operation, resource, id, fields });
  }

  /** A change of these records, for the change feed and the webhooks, in the order announced. */
  change(resource: Resource, ids: number | number[], action: Action): void {
    this.changes.push({ resource, ids: typeof ids === 'number' ? [ids] : ids, action });
  }

  /** What the write announced so far (handed to the write listeners once it commits). */
  get announced(): readonly Announced[] {
    return this.changes;
  }

  /**
   * Rows this write changed are shown by records (every occurrence shows its series' rule): `find`, run once the
   * work is done, names those records, which are announced as updated unless the write announced them otherwise
   * (created, deleted). With a `key` (the rows' own name), once per write.
   */
  showing(resource: Resource, find: FindShowing, key?: string): void {
    if (key !== undefined && this.shown.has(key)) return;
    this.shown.set(key ?? `#${this.shown.size}`, { resource, find });
  }

  /** The records of `showing`, each announced once in the write, after what the work announced. */
  private async announceShowing(): Promise<void> {
    const announced = new Set(this.changes.flatMap(({ resource, ids }) => ids.map((id) => `${resource}:${id}`)));
    for (const { resource, find } of this.shown.values()) {
      const ids = (await find(this.trx)).filter((id) => !announced.has(`${resource}:${id}`));
      for (const id of ids) announced.add(`${resource}:${id}`);
      if (ids.length) this.changes.push({ resource, ids: [...new Set(ids)], action: 'updated' });
    }
  }

  /**
   * Every record whose search documents were rebuilt is announced: match sets are brought up to date from the change
   * feed (search/predicate.ts), so a rebuilt document the feed does not name would keep a stale match. A work that
   * forgets it fails here, in its transaction, rather than serving a wrong search.
   */
  private assertSearchedAnnounced(): void {
    for (const owner of ['posts', 'terms'] as const) {
      const announced = new Set(this.changes.filter((c) => KINDS[c.resource].table === owner).flatMap((c) => c.ids));
      const silent = this.searched[owner].filter((id) => !announced.has(id));
      if (silent.length) throw new Error(`search documents of ${owner} ${silent.join(', ')} rebuilt unannounced`);
    }
  }

  /** Steps 3–7, once the work is done. */
  async finish(): Promise<void> {
    for (const owner of ['posts', 'terms'] as const)
      await syncSearch(this.trx, owner, this.searched[owner], this.made[owner]);
    if (this.countedPosts.size) {
      const deltas = await publishedLinks(this.trx, [...this.countedPosts]);
      for (const [id, n] of this.before) deltas.set(id, (deltas.get(id) ?? 0) - n);
      for (const id of this.recounted) deltas.delete(id);
      await moveCounts(this.trx, deltas);
    }
    await refreshCounts(this.trx, [...this.recounted]);
    for (const entry of this.audits) {
      await insertAudit(this.trx, entry.who, entry.operation, entry.resource, entry.id, entry.fields);
    }
    await this.announceShowing();
    this.assertSearchedAnnounced();
    await raiseStamps(this.trx, this.changes);
    for (const { resource, ids, action } of this.changes) await recordChanges(this.trx, resource, ids, action);
  }
}

/**
 * Runs a write: one transaction (on SQLite grouped with concurrent writes; retried when it loses a race on a
 * constraint, db/dialect.ts), the precondition first, then `work`, then what the work said it touched.
 */
export async function write<T>(db: Db, work: (w: Write) => Promise<T>, options: WriteOptions = {}): Promise<T> {
  const { result, announced } = await transactionWithRetry(db, async (trx) => {
    const guarded = options.precondition;
    if (guarded) await assertPrecondition(trx, guarded.table, guarded.id, guarded.expect);
    const w = new Write(trx);
    const outcome = await work(w);
    await w.finish();
    return { result: outcome, announced: w.announced };
  });
  if (announced.length) for (const listener of listeners.get(db) ?? []) listener(announced);
  return result;
}

/** Called by a create inside its write, once, with the id of the record the request made (Idempotency-Key). */
export type OnCreated = (trx: Knex.Transaction, id: number) => Promise<void>;
