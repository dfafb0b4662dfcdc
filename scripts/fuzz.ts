/**
 * The long fuzz pass (`npm run fuzz`): test/fuzz/fuzz.test.ts with 10 000 generated requests per engine, every
 * failure recorded (not only the first) and reported at the end with the requests sent per operation and status.
 *
 *   npm run fuzz                                  10 000 requests per engine, a fresh random seed (printed)
 *   npm run fuzz -- --seed 1234                   replay a run (same --runs: earlier requests shape the database)
 *   npm run fuzz -- --runs 50000 --engine postgres
 *   npm run fuzz -- --stop                        stop at the first failure and shrink it (fast-check)
 *
 * FUZZ_RUNS, FUZZ_SEED and FUZZ_ENGINE in the environment work too. PostgreSQL runs when TEST_DATABASE_URL
 * (default postgres://postgres@127.0.0.1:5432/test) answers, as in `npm test`.
 */
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    runs: { type: 'string' },
    seed: { type: 'string' },
    engine: { type: 'string' },
    stop: { type: 'boolean', default: false },
  },
});

const runs = values.runs ?? process.env.FUZZ_RUNS ?? '10000';
const seed = values.seed ?? process.env.FUZZ_SEED ?? String(Math.floor(Math.random() * 2 ** 31));
const engine = values.engine ?? process.env.FUZZ_ENGINE ?? '';
for (const [name, value] of [
  ['runs', runs],
  ['seed', seed],
]) {
  if (!/^\d+$/.test(value)) throw new Error(`--${name} must be a whole number, not ${value}`);
}
if (engine && engine !== 'sqlite' && engine !== 'postgres')
  throw new Error(`--engine must be sqlite or postgres, not ${engine}`);

console.log(`fuzz: ${runs} requests per engine${engine ? ` on ${engine}` : ''}, seed ${seed}`);
const started = Date.now();
const result = spawnSync(
  process.execPath,
  [require.resolve('jest/bin/jest'), 'test/fuzz/fuzz.test.ts', '--runInBand'],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      FUZZ_RUNS: runs,
      FUZZ_SEED: seed,
      FUZZ_ENGINE: engine,
      FUZZ_KEEP_GOING: values.stop ? '0' : '1',
      FUZZ_REPORT: '1',
    },
  },
);
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
console.log(
  `fuzz: finished in ${minutes} min (seed ${seed}); replay with: npm run fuzz -- --seed ${seed} --runs ${runs}${engine ? ` --engine ${engine}` : ''}`,
);
process.exit(result.status ?? 1);
