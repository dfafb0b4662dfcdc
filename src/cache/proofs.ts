/**
 * Proofs that a kept answer is still the exact one after a write (docs/decisions.md D147). An answer is gathered a
 * witness as it is made: the stamps of every record it shows (core/stamps.ts: a write raises the stamp of each
 * record it changes what it shows, and terms' when their counts move) and, for a list, the count that decides which
 * records it holds (db/counts.ts, `CountedIds`). After writes, the answer is still exact when
 *
 *   - no stamp it read has moved and no record it showed is gone: every record looks as it did;
 *   - for a list, every record the change feed names since it was made is of the list's own kind, is not in the list
 *     now, and the list's total has not moved. A record that left the list either was on the page (its stamp moved)
 *     or would have moved the total, and one that joined it is in it now: the list holds the same records, and the
 *     records not named kept their order.
 *
 * A few look-ups tell it, so a write retires only the answers it could change (a title written to one event, the
 * lists holding that event and its single reads), not every answer of the calendar.
 */
import type { Executor } from '../db/types';
import { countedIds, holds, type CountedIds } from '../db/counts';
import { toNumber } from '../db/dialect';
import { changesAfter, type ChangedRecord, type Standing, type Stretch } from '../db/feed-position';
import { memo } from '../db/memo';

/** What a list's composition was read from: its count, its total, and whether its page told the total. */
export interface ListWitness {
  counted: CountedIds;
  total: number;
  /** The page held the whole list (a short page, or an empty first one): its records' stamps account for it. */
  toldByPage: boolean;
}

/** What an answer was made from, gathered while it is made (a reader carries it: core/reader.ts). */
export class Witness {
  readonly posts = new Map<number, number>();
  readonly terms = new Map<number, number>();
  /** Each term's place among an event's terms (its lower-cased name), as the page read it. */
  readonly termOrder = new Map<number, string>();
  private listRead: ListWitness | undefined;
  /** Set when the answer read something a witness cannot follow: it then proves nothing. */
  private blind = false;

  /** A record shown, at the stamp of its row in `table`. */
  saw(table: 'posts' | 'terms', id: number, stamp: number): void {
    const seen = this[table];
    if (seen.has(id) && seen.get(id) !== stamp) this.blind = true; // read twice, across a write
    seen.set(id, stamp);
  }

  /** An embedded term shown, at the stamp and the place among an event's terms the page read. */
  sawEmbedded(id: number, stamp: number, order: string): void {
    this.saw('terms', id, stamp);
    this.termOrder.set(id, order);
  }

  /** The count that decides the list's records; undefined for a list whose records no count decides alone. */
  list(read: ListWitness | undefined): void {
    if (!read || this.listRead) this.blind = true;
    this.listRead = read;
  }

  /**
   * The proof of an answer made at the change feed's `position`, if what it read can prove it. It holds only once
   * `confirmed`: when the answer is known to have read one state.
   */
  proof(position: number, isList: boolean): Proof | undefined {
    if (this.blind || (isList ? !this.listRead : this.posts.size + this.terms.size === 0)) return undefined;
    const pairs = (seen: Map<number, number>) => Float64Array.from([...seen].flat());
    const list = isList ? this.listRead : undefined;
    const termOrder = new Map(this.termOrder);
    return { position, posts: pairs(this.posts), terms: pairs(this.terms), termOrder, list, confirmed: false };
  }
}

export interface Proof {
  /** The change feed's position when the answer was read: the changes after it are those to check. */
  position: number;
  /** Each record shown, by stamped table: its id, then its stamp. */
  posts: Float64Array;
  terms: Float64Array;
  /**
   * The place of each embedded term among an event's terms: a term whose stamp moved but not its place can be
   * spliced anew into the answer (http/answer-cache.ts) without making it again.
   */
  termOrder: Map<number, string>;
  list?: ListWitness;
  /** Set once the answer is known to have read one state (http/answer-cache.ts): until then it proves nothing. */
  confirmed: boolean;
}

/** Bytes a proof takes beyond its stamps (a list's count holds its filters), as the answer cache's budget counts. */
const LIST_BYTES = 2048;

/** What a proof weighs in the answer cache's budget. */
export function proofBytes(proof: Proof | undefined): number {
  if (!proof) return 0;
  const order = [...proof.termOrder.values()].reduce((sum, text) => sum + text.length * 2 + 64, 0);
  return proof.posts.byteLength + proof.terms.byteLength + order + 200 + (proof.list ? LIST_BYTES : 0);
}

/** Changes since an answer was made beyond which it is made again rather than proved. */
const MAX_CHANGES = 200;

/**
 * The changes after each proof's position up to where the data stands, read once for every proof at one data version
 * (db/memo.ts). Ids become visible in order (D52), so a stretch of the feed up to a position read never changes.
 */
const stretches = memo<Stretch | undefined>((stretch) => 1 + (stretch?.records.length ?? 0), {
  entries: 1000,
  budget: 100_000,
});

/**
 * Why a kept answer was made again after writes rather than served on its proof (metrics count each): it had no
 * proof to show (`unproved`), too many changes came since (`changes`), a record it shows changed or went
 * (`stamps`), its list's members may have changed (`members`), or a write committed while it was checked (`raced`).
 */
export type Retired = 'unproved' | 'changes' | 'stamps' | 'members' | 'raced';

/** An embedded term whose stamp moved (its count, say) and not its place among an event's terms. */
export interface MovedTerm {
  id: number;
  from: number;
  to: number;
}

/** Where a proof holds through: the feed's position, and the embedded terms to splice anew (none: it holds as is). */
export interface Proved {
  position: number;
  moved: MovedTerm[];
}

/**
 * The feed's position up to which `proof` still holds, checked now, with the embedded terms that moved in place;
 * else why it may not (the answer is then made again). Several statements: the caller checks that no write
 * committed between the first and the last.
 */
export async function provedThrough(db: Executor, proof: Proof, at: Standing): Promise<Proved | Retired> {
  const { position } = proof;
  const read = () => changesAfter(db, position, MAX_CHANGES, at.position);
  const changes = await stretches.get(db, String(position), read, undefined, at);
  if (!changes) return 'changes';
  // the stamps first: they are a look-up by id, and a write to a record a page shows fails them
  const moved = await movedStamps(db, proof);
  if (moved === 'stamps') return moved;
  if (proof.list && !(await sameRecords(db, proof.list, changes.records, at))) return 'members';
  return { position: changes.position, moved };
}

/** Whether the list holds the same records, in the same order, as when it was read (see the head of this file). */
async function sameRecords(db: Executor, list: ListWitness, changed: ChangedRecord[], at: Standing) {
  if (changed.some(({ resource }) => resource !== list.counted.resource)) return false; // filters may read them
  const ids = changed.map(({ id }) => id);
  if (!ids.length) return true;
  if (list.toldByPage) {
    const found = await list.counted.select(ids);
    if ('ids' in found) return found.ids.length === 0;
    return ((await found.query.limit(1)) as unknown[]).length === 0;
  }
  const members = await countedIds(db, list.counted, at);
  return members.length === list.total && !ids.some((id) => holds(members, id));
}

/**
 * The embedded terms whose stamps moved while keeping their place among an event's terms, when every other record
 * shown is still there at the stamp it was shown at; else `stamps`.
 */
async function movedStamps(db: Executor, { posts, terms, termOrder }: Proof): Promise<MovedTerm[] | 'stamps'> {
  const ids = (pairs: Float64Array) => pairs.filter((_, i) => i % 2 === 0);
  const read = (table: 'posts' | 'terms', pairs: Float64Array) =>
    db(table)
      .whereIn('id', [...ids(pairs)])
      .select(
        db.raw(`'${table}' as t`),
        'id',
        'stamp',
        db.raw(table === 'terms' ? 'lower(name) as place' : 'null as place'),
      );
  const parts = [...(posts.length ? [read('posts', posts)] : []), ...(terms.length ? [read('terms', terms)] : [])];
  if (!parts.length) return [];
  const [first, ...rest] = parts;
  const rows = (await (rest.length ? first.unionAll(rest) : first)) as Array<Record<string, unknown>>;
  const now = new Map(rows.map((row) => [`${row.t}:${toNumber(row.id)}`, row]));
  const stampOf = (table: string, id: number) => {
    const row = now.get(`${table}:${id}`);
    return row ? toNumber(row.stamp) : undefined;
  };
  for (let i = 0; i < posts.length; i += 2) if (stampOf('posts', posts[i]) !== posts[i + 1]) return 'stamps';
  const moved: MovedTerm[] = [];
  for (let i = 0; i < terms.length; i += 2) {
    const [id, from] = [terms[i], terms[i + 1]];
    const to = stampOf('terms', id);
    if (to === from) continue;
    const order = termOrder.get(id);
    if (to === undefined || order === undefined || order !== String(now.get(`terms:${id}`)?.place)) return 'stamps';
    moved.push({ id, from, to });
  }
  return moved;
}
