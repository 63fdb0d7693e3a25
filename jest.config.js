/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  // Checks of internals (plans, index names, statement counts, prepared statements, modules behind
  // src/db's entry points) are the opt-in suite `npm run test:contracts` (jest.contracts.config.js).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/tests/performance-contracts/'],
  // babel compiles TS (and the ESM-only superjson / tRPC client) to CommonJS; `tsc` type-checks.
  // (Not @swc/jest or jest 30: their native binaries for other platforms are missing from this
  // registry, which leaves package-lock.json unusable for `npm ci`.)
  transform: { '^.+\\.(t|j)sx?$': 'babel-jest' },
  // Relative imports name the `.js` file Node's ES modules load (packages/client); jest finds the `.ts` source.
  // The client package by name, from its source (tsconfig.json's `paths` says the same to tsc and tsx).
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1', '^@workspace-api/client$': '<rootDir>/packages/client/src/index.ts' },
  transformIgnorePatterns: ['/node_modules/(?!(superjson|copy-anything|is-what|@trpc|@apidevtools)/)'],
  setupFilesAfterEnv: ['<rootDir>/tests/helpers/fail-on-output-mismatch.ts'],
  globalSetup: '<rootDir>/tests/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/tests/helpers/global-teardown.ts',
  testTimeout: 30000,
};
