/**
 * Results derived from the data, memoised per database and data version (data-version.ts): a value is reused only
 * while no write has committed since it was computed, on any node, so a memoised answer is always the exact one.
 * Each memo is a bounded LRU: at most `entries` values and `budget` units of weight (a count weighs 1, a set of ids
 * its length), the least recently used dropped first.
 */
import type { Executor } from './types';
import { dataVersion } from './data-version';

export interface MemoLimits {
  entries: number;
  budget: number;
}

interface Entry<T> {
  version: number;
  value: T;
  weight: number;
}

export interface Memo<T> {
  /**
   * The value of `key` at the current data version: memoised, or computed by `compute` (never memoised inside a
   * transaction, which may see its own uncommitted writes).
   */
  get(db: Executor, key: string, compute: () => Promise<T>): Promise<T>;
}

export function memo<T>(weigh: (value: T) => number, { entries, budget }: MemoLimits): Memo<T> {
  const stores = new WeakMap<object, { map: Map<string, Entry<T>>; weight: number }>();
  return {
    async get(db, key, compute) {
      if (db.isTransaction) return compute();
      const version = await dataVersion(db); // read before computing: the value is at least as new as the version
      let store = stores.get(db);
      if (!store) stores.set(db, (store = { map: new Map(), weight: 0 }));
      const known = store.map.get(key);
      if (known?.version === version) {
        store.map.delete(key); // most recently used last
        store.map.set(key, known);
        return known.value;
      }
      const value = await compute();
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
      store.map.set(key, { version, value, weight });
      store.weight += weight;
      return value;
    },
  };
}
