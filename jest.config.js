/**
 * The jest projects: unit (details only), sandbox (the sandbox's own contract), contract (the seam with n8n), e2e (real
 * n8n + sandbox), compat (a subset on the older n8n lines), faults (real n8n + the sandbox's fault injection: soak,
 * fail-closed, bad input, secrets, webhooks, uploads, token rate limit) and queue (n8n's queue mode). e2e, compat and
 * faults share one n8n and one sandbox per run (global set-up), each test file with its own credential
 * (test/harness/file-setup.ts fetches its token first).
 */
// Transpile only (isolatedModules is set in tsconfig.test.json); types are checked by `npm run typecheck`/lint.
const tsJest = ['ts-jest', { tsconfig: 'tsconfig.test.json', diagnostics: false }];
const common = {
  testEnvironment: 'node',
  modulePathIgnorePatterns: ['<rootDir>/.lint-stage', '<rootDir>/dist/', '<rootDir>/.scratch/', '<rootDir>/.n8n-demo/', '<rootDir>/.n8n-dev/'], transform: { '^.+\\.ts$': tsJest }, moduleFileExtensions: ['ts', 'js', 'json'] };

module.exports = {
  testTimeout: 180000,
  // faults/secrets.test.ts runs last: it searches what every other file of its run left in n8n
  testSequencer: '<rootDir>/test/harness/sequencer.js',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...common, displayName: 'sandbox', testMatch: ['<rootDir>/test/sandbox/**/*.test.ts'] },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
      globalSetup: '<rootDir>/test/harness/global-setup.ts',
      globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/harness/file-setup.ts'],
    },
    {
      ...common,
      // the compatibility subset, on the n8n that AML_N8N_VERSION selects (scripts/test.sh: oldest 1.x and 2.x)
      displayName: 'compat',
      testMatch: ['<rootDir>/test/compat/**/*.test.ts'],
      globalSetup: '<rootDir>/test/harness/global-setup.ts',
      globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/harness/file-setup.ts'],
    },
    {
      ...common,
      displayName: 'faults',
      testMatch: ['<rootDir>/test/faults/**/*.test.ts'],
      globalSetup: '<rootDir>/test/harness/global-setup.ts',
      globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/harness/file-setup.ts'],
    },
    {
      ...common,
      // the seam with n8n (nodes/shared/n8n/) against n8n's own implementation, on the n8n AML_N8N_VERSION selects
      displayName: 'contract',
      testMatch: ['<rootDir>/test/contract/**/*.test.ts'],
    },
    {
      ...common,
      // n8n's queue mode (PostgreSQL, Redis, main, 2 workers, 2 webhook processes), started by the test file itself
      displayName: 'queue',
      testMatch: ['<rootDir>/test/queue/**/*.test.ts'],
    },
  ],
};
