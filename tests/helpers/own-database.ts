import { testDatabaseUrl } from './test-app';
import { createTestDatabase, dropTestDatabase } from './test-databases';

/**
 * A database of its own beside the run's, on the same server (or cluster), created before the
 * file's tests and dropped after them: for tests that change what every workspace shares (the
 * schema, its indexes), which the run's other test files must not see. Answers its URL.
 */
export function useOwnDatabase(prefix: string): string {
  const name = `${prefix}_${Date.now()}_${process.pid}`;
  const adminUrl = testDatabaseUrl();
  beforeAll(() => createTestDatabase(name, adminUrl), 60_000);
  afterAll(() => dropTestDatabase(name, adminUrl), 60_000);
  return Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();
}
