import pg from 'pg';
import type { TestDatabaseHandle } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  const handle = (globalThis as { __testDatabase?: TestDatabaseHandle }).__testDatabase;
  if (!handle) return;
  await handle.embedded?.stop();
  if (handle.adminUrl && handle.name) {
    const admin = new pg.Client({ connectionString: handle.adminUrl });
    await admin.connect();
    await admin.query(`drop database if exists ${handle.name} with (force)`);
    await admin.end();
  }
}
