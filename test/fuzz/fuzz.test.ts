/**
 * Property-based fuzzing of every operation of the spec, on every engine: generated requests (valid values,
 * boundaries, wrong types, oversized and unicode strings, injection-looking strings, missing and extra fields,
 * malformed JSON and form bodies, odd headers; anonymous, every role, wrong passwords, malformed credentials) must
 * keep the invariants of `harness.ts`: no 5xx, errors in the WordPress shape naming the operation's parameters,
 * the documented order of checks, and no change to the database from a refused write or a read.
 *
 * `FUZZ_RUNS` is the number of requests per engine (about; default 300, a quick pass inside `npm test`); half go
 * to each operation in turn, half to operations in random order. `FUZZ_SEED` replays a run (fast-check prints the
 * seed of a failing one; a replay needs the same `FUZZ_RUNS`, as earlier requests shape the database).
 * `FUZZ_KEEP_GOING=1` records every failure instead of stopping at the first, and reports them all at the end;
 * `FUZZ_REPORT=1` prints the requests sent per operation and status; `FUZZ_ENGINE` keeps one engine.
 * `npm run fuzz` runs the long pass (scripts/fuzz.ts).
 */
import fc from 'fast-check';
import { loadSpec } from '../../src/http/spec';
import { ENGINES } from '../support/engines';
import { anyRequestArbitrary, requestArbitrary, type FuzzRequest } from './generators';
import { describeRequest, FuzzHarness, shorten } from './harness';

const RUNS = Math.max(1, Number(process.env.FUZZ_RUNS || 300));
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const KEEP_GOING = process.env.FUZZ_KEEP_GOING === '1';
const REPORT = process.env.FUZZ_REPORT === '1';
const engines = ENGINES.filter((engine) => !process.env.FUZZ_ENGINE || engine === process.env.FUZZ_ENGINE);

const operations = loadSpec().operations;
const PER_OPERATION = Math.max(1, Math.floor(RUNS / 2 / operations.length));
const MIXED = Math.max(1, RUNS - PER_OPERATION * operations.length);
const replay = `replay with FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS}${process.env.FUZZ_ENGINE ? ` FUZZ_ENGINE=${process.env.FUZZ_ENGINE}` : ''}`;
/** Generous: PostgreSQL, 100 KB strings and shrinking a failure all take time. */
const timeout = (runs: number) => 60_000 + runs * 500;

describe.each(engines)('fuzz on %s', (engine) => {
  let harness: FuzzHarness;
  let started = 0;

  beforeAll(async () => {
    started = Date.now();
    harness = await FuzzHarness.start(engine);
    await harness.seed();
  }, 180_000); // a bound for hangs: seeding on a loaded machine is slow

  afterAll(async () => {
    if (!harness) return;
    if (REPORT) {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const failures = harness.failures.size ? `\n\nFailures:\n${harness.failureReport()}` : '\n\nNo failures.';
      console.log(
        `fuzz on ${engine}: ${harness.requests} requests in ${seconds} s (seed ${SEED}, ${RUNS} runs)\n${harness.summary()}${failures}`,
      );
    }
    await harness.close();
  });

  /** Sends `numRuns` generated requests; the first violation fails (and shrinks), unless FUZZ_KEEP_GOING. */
  async function fuzz(arbitrary: fc.Arbitrary<FuzzRequest>, numRuns: number): Promise<void> {
    const property = fc.asyncProperty(arbitrary, async (request) => {
      const { violations, concrete, answer, log } = await harness.exchange(request);
      if (violations.length && !KEEP_GOING) {
        const cause = log ? `\nlogged:   ${log}` : '';
        throw new Error(
          `${violations.join('\n')}\nrequest:  ${describeRequest(concrete)}\nresponse: ${answer.status} ${shorten(answer.text, 500)}${cause}`,
        );
      }
    });
    try {
      await fc.assert(property, { numRuns, seed: SEED });
    } catch (err) {
      (err as Error).message = `${(err as Error).message}\n\n${replay}`;
      throw err;
    }
  }

  it.each(operations.map((op) => [op.operationId]))(
    '%s keeps the invariants for any request',
    async (operationId) => {
      const op = operations.find((o) => o.operationId === operationId) as (typeof operations)[number];
      await fuzz(requestArbitrary(op, harness.generatorContext), PER_OPERATION);
    },
    timeout(PER_OPERATION),
  );

  it(
    'keeps the invariants for any request to operations in any order',
    async () => {
      await fuzz(anyRequestArbitrary(harness.generatorContext), MIXED);
    },
    timeout(MIXED),
  );

  it('reached every operation', () => {
    expect([...harness.stats.keys()].sort()).toEqual(operations.map((op) => op.operationId).sort());
  });

  if (KEEP_GOING) {
    it('found no failure', () => {
      if (harness.failures.size)
        throw new Error(`${harness.failures.size} kinds of failure:\n\n${harness.failureReport()}\n\n${replay}`);
    });
  }
});
