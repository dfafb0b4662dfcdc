/**
 * The representation cache (docs/decisions.md D71): rendered records, as the bytes of their JSON, kept in memory and served until
 * one of the records they show changes. A key names everything a representation depends on: the record's stamp and
 * the stamps of what it embeds (core/stamps.ts, read from the database with the page, so exact on every node), the
 * language, the root its URLs are built on and how the caller sees it. No entry is ever invalidated: a write raises a
 * stamp, its key is never asked for again, and the LRU lets the entry go when the byte budget needs the room.
 */
import { LRUCache } from 'lru-cache';
import type { Config } from '../config';
import type { Metrics } from '../metrics/registry';

export interface RepresentationCache {
  /**
   * The bytes for each key, rendering with `render` those not held (given the positions of the missing keys, it
   * answers their bytes in the same order) and keeping them.
   */
  fetch(keys: readonly string[], render: (missing: number[]) => Promise<Buffer[]>): Promise<Buffer[]>;
  readonly enabled: boolean;
}

/** On or off, and the budget: keys and bytes together never exceed `renderCacheBytes`. */
type CacheSettings = Pick<Config, 'renderCache' | 'renderCacheBytes'>;

/** Bytes a key costs beyond its text (the map's entry and the LRU's links, measured roughly). */
const ENTRY_OVERHEAD = 160;

export function createRepresentationCache(settings: CacheSettings, metrics: Metrics): RepresentationCache {
  const { renderCache: enabled, renderCacheBytes: maxBytes } = settings;
  const hits = metrics.counter('representation_cache_hits_total', 'Representations served from the cache');
  const misses = metrics.counter('representation_cache_misses_total', 'Representations rendered (not in the cache)');
  const evictions = metrics.counter(
    'representation_cache_evictions_total',
    'Representations let go to stay within the byte budget',
  );
  if (!enabled) {
    return {
      enabled,
      async fetch(keys, render) {
        misses.inc(keys.length);
        return render(keys.map((_, i) => i));
      },
    };
  }
  const entries = new LRUCache<string, Buffer>({
    maxSize: maxBytes,
    sizeCalculation: (value, key) => value.length + key.length * 2 + ENTRY_OVERHEAD,
    dispose: (_value, _key, reason) => {
      if (reason === 'evict') evictions.inc();
    },
  });
  metrics.gauge('representation_cache_bytes', 'Bytes the cached representations and their keys take', () =>
    Number(entries.calculatedSize),
  );
  metrics.gauge('representation_cache_entries', 'Representations in the cache', () => entries.size);
  return {
    enabled,
    async fetch(keys, render) {
      const found = keys.map((key) => entries.get(key));
      const missing = found.flatMap((bytes, i) => (bytes ? [] : [i]));
      hits.inc(keys.length - missing.length);
      if (!missing.length) return found as Buffer[];
      misses.inc(missing.length);
      const rendered = await render(missing);
      missing.forEach((position, n) => {
        found[position] = rendered[n];
        entries.set(keys[position], rendered[n]);
      });
      return found as Buffer[];
    },
  };
}
