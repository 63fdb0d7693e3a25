import type { TestDatabaseHandle } from './global-setup';
import { dropTestDatabase } from './test-databases';

export default async function globalTeardown(): Promise<void> {
  const handle = (globalThis as { __testDatabase?: TestDatabaseHandle }).__testDatabase;
  if (!handle) return;
  await handle.embedded?.stop();
  if (handle.name) await dropTestDatabase(handle.name, handle.adminUrl);
}
