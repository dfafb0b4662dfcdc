/**
 * The answer cache (docs/decisions.md D136): whole answers of repeated reads (status 200, their headers and bytes),
 * kept in memory and served without routing, validation, statements or rendering. An entry is served only while
 * the data version it was computed at is still the current one (read from the database on every hit, so a write
 * committed on any node retires it) and before the instant at which time alone could change it. Like the
 * representation cache, nothing is invalidated: an entry nobody can be served any more ages out of the LRU.
 */
import { LRUCache } from 'lru-cache';
import type { Config } from '../config';
import type { Metrics } from '../metrics/registry';
import { ENTRY_OVERHEAD, MAX_ROOTS, ownStorage } from './representations';

export interface Answer {
  /** The data version read before the answer was computed: it is at least this new. */
  version: number;
  /** Epoch milliseconds (service clock) from which time alone could change the answer. */
  validUntil: number;
  /** The headers the answer set after the cache was asked, in the order they were set. */
  headers: ReadonlyArray<readonly [string, string | string[]]>;
  etag: string;
  body: Buffer;
  /** What the answer's operation is called (metrics label it). */
  operation: unknown;
}

export interface AnswerCache {
  readonly enabled: boolean;
  /** The answer kept for `key`, if it was computed at `version` and is still good at `at` (epoch ms). */
  get(key: string, version: number, at: number): Answer | undefined;
  keep(key: string, answer: Answer): void;
  /** Whether answers built on `root` may be kept: the first `MAX_ROOTS` roots seen only. */
  keepsRoot(root: string): boolean;
}

type CacheSettings = Pick<Config, 'answerCache' | 'answerCacheBytes'>;

/** Keys longer than this are not kept: a made-up query could otherwise fill an entry with its key alone. */
export const MAX_KEY_LENGTH = 2048;

const headerBytes = (headers: Answer['headers']) =>
  headers.reduce((sum, [name, value]) => sum + (name.length + String(value).length) * 2 + 64, 0);

export function createAnswerCache(settings: CacheSettings, metrics: Metrics): AnswerCache {
  const hits = metrics.counter('answer_cache_hits_total', 'Reads answered from the answer cache');
  const misses = metrics.counter('answer_cache_misses_total', 'Cacheable reads computed (not in the cache, or stale)');
  const evictions = metrics.counter('answer_cache_evictions_total', 'Answers let go to stay within the byte budget');
  if (!settings.answerCache) {
    return { enabled: false, get: () => undefined, keep: () => undefined, keepsRoot: () => false };
  }
  const entries = new LRUCache<string, Answer>({
    maxSize: settings.answerCacheBytes,
    sizeCalculation: (answer, key) =>
      answer.body.length + key.length * 2 + headerBytes(answer.headers) + answer.etag.length * 2 + ENTRY_OVERHEAD,
    dispose: (_value, _key, reason) => {
      if (reason === 'evict') evictions.inc();
    },
  });
  metrics.gauge('answer_cache_bytes', 'Bytes the cached answers and their keys take', () =>
    Number(entries.calculatedSize),
  );
  metrics.gauge('answer_cache_entries', 'Answers in the answer cache', () => entries.size);
  const roots = new Set<string>();
  return {
    enabled: true,
    get(key, version, at) {
      const answer = entries.get(key);
      if (answer && answer.version === version && at < answer.validUntil) {
        hits.inc();
        return answer;
      }
      misses.inc();
      return undefined;
    },
    keep(key, answer) {
      if (key.length > MAX_KEY_LENGTH) return;
      entries.set(key, { ...answer, body: ownStorage(answer.body) });
    },
    keepsRoot(root) {
      if (roots.has(root)) return true;
      if (roots.size >= MAX_ROOTS) return false;
      roots.add(root);
      return true;
    },
  };
}
