/**
 * The contract run (runner.ts, docs/decisions.md D90) on every engine, with fixed settings so that a failure is
 * replayed by running this file again: CONTRACT_SEED (default 2023), CONTRACT_POSITIVE (positive requests per
 * operation, default 2) and CONTRACT_NEGATIVE (negative requests per operation at most, default 4) change them.
 */
import { loadSpec } from '../../src/http/spec';
import { startService, type TestService } from '../support/app';
import { ENGINES } from '../support/engines';
import { ContractRun, type Settings } from './runner';

const settings: Settings = {
  seed: Number(process.env.CONTRACT_SEED ?? 2023),
  positive: Number(process.env.CONTRACT_POSITIVE ?? 2),
  negative: Number(process.env.CONTRACT_NEGATIVE ?? 4),
};

describe.each(ENGINES)('contract run on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    // the run sends two wrong logins per operation that needs credentials, from one client: far over the
    // throttle's ceiling, which its own tests cover (test/http/login-attacks.test.ts)
    service = await startService(engine, { LOGIN_MAX_FAILURES: '1000000' });
  });
  afterAll(() => service.close());

  it(`keeps every check on every operation (seed ${settings.seed}, ${settings.positive} positive and up to ${settings.negative} negative requests per operation)`, async () => {
    const spec = loadSpec();
    const run = new ContractRun(service, spec.operations, spec.document, settings);
    await run.run();
    // every operation was exercised, with valid requests and (where it takes any input) invalid ones
    const untested = spec.operations.filter((op) => !run.counts.get(op.operationId)?.positive_data_acceptance);
    expect(untested.map((op) => op.operationId)).toEqual([]);
    const report = run.failures.map((f) => `${f.check} ${f.operationId}: ${f.request}\n    ${f.detail}`);
    expect(report).toEqual([]);
  }, 600_000);
});
