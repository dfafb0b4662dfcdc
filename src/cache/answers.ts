/**
 * The answer cache (docs/decisions.md D136, D147): whole answers of repeated reads (status 200, their headers and
 * bytes), kept in memory and served without routing, validation, statements or rendering. An entry is served while
 * the data version it was computed at is still the current one (read from the database on every hit, so a write
 * committed on any node retires it), or once its proof shows that the writes since cannot have changed it
 * (cache/proofs.ts), and before the instant at which time alone could change it. Like the representation cache,
 * nothing is invalidated: an entry nobody can be served any more ages out of the LRU.
 */
import { LRUCache } from 'lru-cache';
import type { Config } from '../config';
import type { Metrics } from '../metrics/registry';
import { ENTRY_OVERHEAD, MAX_ROOTS, ownStorage } from './representations';
import { proofBytes, type Proof, type Retired } from './proofs';

export interface Answer {
  /** The data version read before the answer was computed (or proved again): it is at least this new. */
  version: number;
  /** What shows the answer still exact after writes (once confirmed: the answer read one state). */
  proof?: Proof;
  /** Epoch milliseconds (service clock) from which time alone could change the answer. */
  validUntil: number;
  /** The headers the answer set after the cache was asked, in the order they were set. */
  headers: ReadonlyArray<readonly [string, string | string[]]>;
  etag: string;
  /** The record's version its ETag leads with (a single read's), to tag it again when it is renewed. */
  recordVersion?: string;
  body: Buffer;
  /** What the answer's operation is called (metrics label it). */
  operation: unknown;
}

export interface AnswerCache {
  readonly enabled: boolean;
  /** The answer kept for `key` while time alone leaves it good at `at` (epoch ms), at whichever data version. */
  get(key: string, at: number): Answer | undefined;
  /**
   * Counts a read answered from the cache (`proved`: its proof shown to hold first; `renewed`: its embedded terms
   * spliced anew too) or computed (`retired`: why the answer kept for it was not served).
   */
  count(outcome: 'hit' | 'proved' | 'renewed' | 'miss', retired?: Retired): void;
  /** Keeps the answer; what is kept (undefined when not). */
  keep(key: string, answer: Answer): Answer | undefined;
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
  const proved = metrics.counter(
    'answer_cache_proved_total',
    'Reads answered from the answer cache once its proof showed the writes since could not change the answer',
  );
  const renewed = metrics.counter(
    'answer_cache_renewed_total',
    'Reads answered from the answer cache with the categories and tags its events show spliced anew (counts moved)',
  );
  const misses = metrics.counter('answer_cache_misses_total', 'Cacheable reads computed (not in the cache, or stale)');
  const evictions = metrics.counter('answer_cache_evictions_total', 'Answers let go to stay within the byte budget');
  const retirements = metrics.counter(
    'answer_cache_retired_total',
    'Kept answers made again after writes, by what retired them (unproved, changes, stamps, members, raced)',
    ['reason'],
  );
  if (!settings.answerCache) {
    const none = () => undefined;
    return { enabled: false, get: none, count: none, keep: none, keepsRoot: () => false };
  }
  const entries = new LRUCache<string, Answer>({
    maxSize: settings.answerCacheBytes,
    sizeCalculation: (answer, key) =>
      answer.body.length +
      key.length * 2 +
      headerBytes(answer.headers) +
      answer.etag.length * 2 +
      proofBytes(answer.proof) +
      ENTRY_OVERHEAD,
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
    get(key, at) {
      const answer = entries.get(key);
      return answer && at < answer.validUntil ? answer : undefined;
    },
    count(outcome, retired) {
      if (retired) retirements.inc({ reason: retired });
      if (outcome === 'miss') misses.inc();
      else hits.inc();
      if (outcome === 'proved') proved.inc();
      if (outcome === 'renewed') renewed.inc();
    },
    keep(key, answer) {
      if (key.length > MAX_KEY_LENGTH) return undefined;
      const kept = { ...answer, body: ownStorage(answer.body) };
      entries.set(key, kept);
      return kept;
    },
    keepsRoot(root) {
      if (roots.has(root)) return true;
      if (roots.size >= MAX_ROOTS) return false;
      roots.add(root);
      return true;
    },
  };
}
