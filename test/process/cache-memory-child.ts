/**
 * Run by cache-memory.test.ts as `node --expose-gc --import tsx`: fills a representation cache with `ENTRIES`
 * unique keys (each a different host's root, as a caller making up hosts would) under a budget of `BUDGET_MB`, and
 * prints what the process holds after a full collection, before and after: `{budget, grown, rssGrown, entries}`.
 */
import { createRepresentationCache, ENTRY_OVERHEAD } from '../../src/cache/representations';
import { createMetrics } from '../../src/metrics/registry';

const gc = (globalThis as { gc?: () => void }).gc as () => void;
const entries = Number(process.env.ENTRIES);
const budget = Number(process.env.BUDGET_MB) * 1024 * 1024;

function held() {
  gc();
  gc();
  const { heapUsed, external, rss } = process.memoryUsage();
  return { bytes: heapUsed + external, rss };
}

/** A record's JSON as the service renders it, of a few hundred bytes (the pooled size that undercounted). */
const record = (i: number) =>
  Buffer.from(JSON.stringify({ id: i, title: `Event ${i}`, description: 'x'.repeat(100 + (i % 200)) }));

async function main() {
  const cache = createRepresentationCache(
    { renderCache: true, renderCacheBytes: budget },
    createMetrics({ enabled: false }),
  );
  (globalThis as { kept?: unknown }).kept = cache; // held to the end, as the server holds it
  const before = held();
  let counted = 0;
  for (let i = 0; i < entries; i++) {
    const key = `event|en|http://h${i}.example.org:8080/calendar/events/v1|${i}.${i * 7}`;
    await cache.fetch([key], async () => {
      const bytes = record(i);
      counted += bytes.length + key.length * 2 + ENTRY_OVERHEAD;
      return [bytes];
    });
    Buffer.from('garbage between entries: pool slabs are shared with other allocations');
  }
  const after = held();
  process.stdout.write(
    `${JSON.stringify({ budget, grown: after.bytes - before.bytes, rssGrown: after.rss - before.rss, counted })}\n`,
  );
}

void main();
