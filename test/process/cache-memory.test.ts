/**
 * The representation cache's byte budget bounds what the process holds: a child process (`--expose-gc`, so the
 * figures are taken after full collections, not at the collector's whim) fills a cache with 100 000 unique keys,
 * each naming another host as made-up Hosts would, under an 8 MiB budget; the heap and external memory it holds
 * afterwards grow by no more than the budget and 1 MiB. Before the budget counted the real cost of an entry, the
 * same fill held about 12 MB: pooled Buffers kept 8 KiB slabs alive, and the fixed overhead was undercounted.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './support';

const BUDGET_MB = 8;
const MARGIN = 1024 * 1024;

it('holds no more than the budget and 1 MiB after filling the cache with unique hosts', () => {
  const child = spawnSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', path.join('test', 'process', 'cache-memory-child.ts')],
    { cwd: ROOT, env: { ...process.env, ENTRIES: '100000', BUDGET_MB: String(BUDGET_MB) }, encoding: 'utf8' },
  );
  expect(child.stderr).toBe('');
  const { budget, grown, counted } = JSON.parse(child.stdout);
  expect(budget).toBe(BUDGET_MB * 1024 * 1024);
  expect(counted).toBeGreaterThan(5 * budget); // the fill went far past the budget: entries were let go
  expect(grown).toBeLessThanOrEqual(budget + MARGIN);
  expect(grown).toBeGreaterThan(budget / 2); // and the cache did fill up to it
});
