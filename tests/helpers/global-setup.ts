import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/embedded-database';
import { createDb } from '../../src/db/knex';
import { migrateLatest } from '../../src/db/migrator';
import { createTestDatabase, isCitus, runSql } from './test-databases';

export interface TestDatabaseHandle {
  embedded?: EmbeddedPostgres;
  adminUrl?: string;
  name?: string;
}

/**
 * Gives the whole run one freshly migrated database: a new database on the server named by
 * TEST_DATABASE_URL (never DATABASE_URL's) or made by TEST_DATABASE_COMMAND (a Citus cluster),
 * or else an embedded PostgreSQL in a temporary folder. Test files find it in WSAPI_TEST_DB_URL.
 *
 * On Citus every session of the run refuses a statement that would touch more than one shard
 * (citus.multi_task_query_log_level = error): the suite's API traffic is the proof that every
 * request is single-shard. Work that spans workspaces says so (src/db/across-workspaces.ts).
 */
export default async function globalSetup(): Promise<void> {
  const handle: TestDatabaseHandle = {};
  let url: string;
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl || process.env.TEST_DATABASE_COMMAND) {
    const name = `wsapi_test_${Date.now()}_${process.pid}`;
    url = await createTestDatabase(name, adminUrl);
    Object.assign(handle, { adminUrl, name });
  } else {
    handle.embedded = await startEmbeddedPostgres();
    url = handle.embedded.url;
  }
  const db = createDb({ url, poolMax: 1 });
  await migrateLatest(db);
  await db.destroy();
  if (await isCitus(url)) {
    await runSql(url, `alter database ${new URL(url).pathname.slice(1)} set citus.multi_task_query_log_level = 'error'`);
    process.env.WSAPI_TEST_CITUS = '1';
  }
  process.env.WSAPI_TEST_DB_URL = url;
  (globalThis as { __testDatabase?: TestDatabaseHandle }).__testDatabase = handle;
}
