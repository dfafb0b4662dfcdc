/**
 * Jest: TypeScript through ts-jest in transpile-only mode (type-checking is `tsc --noEmit`, run first by `npm test`).
 * Jest 29 + ts-jest rather than Jest 30 + @swc/jest: their per-platform binaries are not all on our registry, which
 * leaves a lock file that `npm ci` refuses.
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true, diagnostics: false }] },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  // a deadline for hangs, not a measure: PostgreSQL suites on a loaded 2-core machine take several times longer
  testTimeout: 120_000,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
