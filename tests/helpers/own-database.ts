import pg from 'pg';
import { testDatabaseUrl } from './test-app';

/**
 * A database of its own beside the run's, on the same real PostgreSQL server, created before the
 * file's tests and dropped after them: for tests that change what every workspace shares (the
 * schema, its indexes), which the run's other test files must not see. Answers its URL.
 */
export function useOwnDatabase(prefix: string): string {
  const name = `${prefix}_${Date.now()}_${process.pid}`;
  const adminUrl = testDatabaseUrl();
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  beforeAll(() => admin(`create database ${name}`));
  afterAll(() => admin(`drop database if exists ${name} with (force)`));
  return Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();
}
