/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  // babel compiles TS (and the ESM-only superjson / tRPC client) to CommonJS; `tsc` type-checks.
  // (Not @swc/jest or jest 30: their native binaries for other platforms are missing from this
  // registry, which leaves package-lock.json unusable for `npm ci`.)
  transform: { '^.+\\.(t|j)sx?$': 'babel-jest' },
  transformIgnorePatterns: ['/node_modules/(?!(superjson|copy-anything|is-what|@trpc)/)'],
  setupFilesAfterEnv: ['<rootDir>/tests/helpers/fail-on-output-mismatch.ts'],
  globalSetup: '<rootDir>/tests/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/tests/helpers/global-teardown.ts',
  testTimeout: 30000,
};
