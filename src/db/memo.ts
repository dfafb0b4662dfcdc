/**
 * Results derived from the data, memoised per database and data version (data-version.ts): a value is reused only
 * while no write has committed since it was computed, on any node, so a memoised answer is always the exact one.
 * Each memo is a bounded LRU: at most `entries` values and `budget` units of weight (a count weighs 1, a set of ids
 * its length), the least recently used dropped first.
 *
 * A value that can be brought up to date from the records written since (a match set: one record's membership
 * depends on that record alone) is given an `update`: after a write, it is handed the value and the change feed's
 * position when the value was made, and patches the value from the records changed after it, rather than having it
 * found again. Writes announce every record they change in the feed, in the writing transaction (core/write.ts).
 *
 * Calls for a key at the data version of a value being made share it: a burst of requests for a common word, the
 * first after a write, finds or patches its match set once.
 */
import type { Executor } from './types';
import { dataVersion } from './data-version';
import { latestPosition, type Standing } from './feed-position';

export interface MemoLimits {
  entries: number;
  budget: number;
}

interface Entry<T> {
  version: number;
  /** The change feed's position read before the value was made (with `update` only). */
  position: number;
  value: T;
  weight: number;
}

/**
 * Brings `value`, exact at the change feed's position `since`, up to date (it must reflect every record changed
 * after it); undefined when it cannot (too many changes): it is then computed again.
 */
export type Update<T> = (value: T, since: number) => Promise<T | undefined>;

export interface Memo<T> {
  /**
   * The value of `key` at the current data version: memoised, updated by `update` when one is given and a write
   * came since, or computed by `compute` (never memoised inside a transaction, which may see its own uncommitted
   * writes). `at`, when the caller has just read where the data stands, spares reading it again.
   */
  get(db: Executor, key: string, compute: () => Promise<T>, update?: Update<T>, at?: Standing): Promise<T>;
}

export function memo<T>(weigh: (value: T) => number, { entries, budget }: MemoLimits): Memo<T> {
  const stores = new WeakMap<object, Store<T>>();
  return {
    async get(db, key, compute, update, at) {
      if (db.isTransaction) return compute();
      const version = at?.version ?? (await dataVersion(db)); // read before computing: the value is as new or newer
      let store = stores.get(db);
      if (!store) stores.set(db, (store = { map: new Map(), weight: 0, making: new Map() }));
      const known = store.map.get(key);
      if (known?.version === version) {
        store.map.delete(key); // most recently used last
        store.map.set(key, known);
        return known.value;
      }
      // a value being made at this version is the one this call would make: the same data, read once
      const making = store.making.get(key);
      if (making?.version === version) return making.value;
      const value = made(db, store, { key, version, known, compute, update, at });
      store.making.set(key, { version, value });
      try {
        return await value;
      } finally {
        if (store.making.get(key)?.value === value) store.making.delete(key);
      }
    },
  };

  /** The value of `key` at `version`, updated from `known` or computed, then kept within the limits. */
  async function made(db: Executor, store: Store<T>, asked: Asked<T>): Promise<T> {
    const { key, version, known, compute, update, at } = asked;
    // read before the value is made, as the version: it is then at least as new as both
    const position = update ? (at?.position ?? (await latestPosition(db))) : 0;
    const updated = known && update ? await update(known.value, known.position) : undefined;
    const value = updated !== undefined ? updated : await compute();
    const weight = weigh(value);
    const old = store.map.get(key);
    if (old) {
      store.map.delete(key);
      store.weight -= old.weight;
    }
    if (weight > budget) return value;
    while (store.map.size >= entries || store.weight + weight > budget) {
      const [oldest, entry] = store.map.entries().next().value as [string, Entry<T>];
      store.map.delete(oldest);
      store.weight -= entry.weight;
    }
    store.map.set(key, { version, position, value, weight });
    store.weight += weight;
    return value;
  }
}

/** What a call of `get` asks for, with the entry it found (of an older version). */
interface Asked<T> {
  key: string;
  version: number;
  known: Entry<T> | undefined;
  compute: () => Promise<T>;
  update: Update<T> | undefined;
  at: Standing | undefined;
}

/** A database's memoised values, their total weight, and the values being made (at the version they are made at). */
interface Store<T> {
  map: Map<string, Entry<T>>;
  weight: number;
  making: Map<string, { version: number; value: Promise<T> }>;
}
