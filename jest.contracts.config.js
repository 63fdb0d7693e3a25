/**
 * The performance-contract suite (`npm run test:contracts`): checks that pin internals on purpose
 * (query plans, index names, statements per write, prepared statements, the modules behind src/db's
 * entry points). Same transform, database and global setup as `npm test`: TEST_DATABASE_URL, the
 * embedded default, or TEST_DATABASE_COMMAND (Citus).
 * @type {import('jest').Config}
 */
const base = require('./jest.config.js');

module.exports = {
  ...base,
  roots: ['<rootDir>/tests/performance-contracts'],
  testPathIgnorePatterns: ['/node_modules/'],
};
