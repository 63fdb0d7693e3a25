import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded-postgres';
import { createDb } from '../../src/db/knex';
import { migrateLatest } from '../../src/db/migrator';

export interface TestDatabaseHandle {
  embedded?: EmbeddedPostgres;
  adminUrl?: string;
  name?: string;
}

/**
 * Gives the whole run one freshly migrated database: a new database on the server named by
 * TEST_DATABASE_URL (never DATABASE_URL's), or else an embedded PostgreSQL in a temporary folder. Test files find
 * it in WSAPI_TEST_DB_URL.
 */
export default async function globalSetup(): Promise<void> {
  const handle: TestDatabaseHandle = {};
  let url: string;
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl) {
    const name = `wsapi_test_${Date.now()}_${process.pid}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const parsed = new URL(adminUrl);
    parsed.pathname = `/${name}`;
    url = parsed.toString();
    Object.assign(handle, { adminUrl, name });
  } else {
    handle.embedded = await startEmbeddedPostgres();
    url = handle.embedded.url;
  }
  const db = createDb({ url, poolMax: 1 });
  await migrateLatest(db);
  await db.destroy();
  process.env.WSAPI_TEST_DB_URL = url;
  (globalThis as { __testDatabase?: TestDatabaseHandle }).__testDatabase = handle;
}
