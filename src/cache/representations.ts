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
  /** The bytes held for `key`, if any (not counted: nothing is served from it as such). */
  held(key: string): Buffer | undefined;
  readonly enabled: boolean;
  /**
   * The cache for representations whose URLs are built on `root`: this one for the first `MAX_ROOTS` roots seen,
   * a cache that keeps nothing for any other (hosts a caller makes up must not multiply the entries).
   */
  forRoot(root: string): RepresentationCache;
}

/** Distinct roots (scheme, host, BASE_PATH) whose representations are kept; ALLOWED_HOSTS bounds them too. */
export const MAX_ROOTS = 16;

/** On or off, and the budget: keys and bytes together never exceed `renderCacheBytes`. */
type CacheSettings = Pick<Config, 'renderCache' | 'renderCacheBytes'>;

/**
 * Bytes an entry costs beyond its key's characters (counted two bytes each, as V8 may store them) and its value's
 * bytes: the Buffer and ArrayBuffer objects and the backing store's allocation, the key string's header, the LRU's
 * map entry and index slots. Measured (test/process/cache-memory.test.ts) on Node 20 at about 330 bytes.
 */
export const ENTRY_OVERHEAD = 400;

/**
 * A copy of `bytes` with storage of its own. `Buffer.from(text)` of under 4 KiB is a view of a shared 8 KiB pool
 * slab, and a kept view keeps the whole slab alive: 100-byte entries would hold 8 KiB each.
 */
export function ownStorage(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  const own = Buffer.allocUnsafeSlow(bytes.byteLength);
  bytes.copy(own);
  return own;
}

/** A cache that keeps nothing: every key is rendered. */
function uncached(misses: { inc(n: number): void }): RepresentationCache {
  const cache: RepresentationCache = {
    enabled: false,
    async fetch(keys, render) {
      misses.inc(keys.length);
      return render(keys.map((_, i) => i));
    },
    held: () => undefined,
    forRoot: () => cache,
  };
  return cache;
}

export function createRepresentationCache(settings: CacheSettings, metrics: Metrics): RepresentationCache {
  const { renderCache: enabled, renderCacheBytes: maxBytes } = settings;
  const hits = metrics.counter('representation_cache_hits_total', 'Representations served from the cache');
  const misses = metrics.counter('representation_cache_misses_total', 'Representations rendered (not in the cache)');
  const evictions = metrics.counter(
    'representation_cache_evictions_total',
    'Representations let go to stay within the byte budget',
  );
  const passThrough = uncached(misses);
  if (!enabled) return passThrough;
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
  const roots = new Set<string>();
  const cache: RepresentationCache = {
    enabled,
    forRoot(root) {
      if (roots.has(root)) return cache;
      if (roots.size >= MAX_ROOTS) return passThrough;
      roots.add(root);
      return cache;
    },
    held: (key) => entries.get(key),
    async fetch(keys, render) {
      const found = keys.map((key) => entries.get(key));
      const missing = found.flatMap((bytes, i) => (bytes ? [] : [i]));
      hits.inc(keys.length - missing.length);
      if (!missing.length) return found as Buffer[];
      misses.inc(missing.length);
      const rendered = await render(missing);
      missing.forEach((position, n) => {
        found[position] = ownStorage(rendered[n]);
        entries.set(keys[position], found[position] as Buffer);
      });
      return found as Buffer[];
    },
  };
  return cache;
}
