import type { Knex } from 'knex';
import { MIGRATIONS } from '../../migrations';

type Migration = (typeof MIGRATIONS)[number];

const migrationSource: Knex.MigrationSource<Migration> = {
  getMigrations: async () => MIGRATIONS,
  getMigrationName: (migration) => migration.name,
  getMigration: async (migration) => migration.module,
};

/** Applies pending migrations; answers the names applied (empty when already current). */
export async function migrateLatest(db: Knex): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}

/** Any fixed number: the advisory lock every process takes to migrate (connect.ts's migrateOnce too). */
export const MIGRATION_LOCK_KEY = 7_363_902_511;

/**
 * migrateLatest while holding the migrators' advisory lock on a connection of the pool's (so the
 * pool needs two): `workspace-api migrate` run by pods starting together (Kubernetes init
 * containers) then wait for each other, where knex's own lock would fail all but one with
 * "Migration table is already locked".
 */
export async function migrateLatestExclusively(db: Knex): Promise<string[]> {
  const connection: unknown = await db.client.acquireConnection();
  try {
    await db.raw('select pg_advisory_lock(?)', [MIGRATION_LOCK_KEY]).connection(connection);
    try {
      return await migrateLatest(db);
    } finally {
      await db.raw('select pg_advisory_unlock(?)', [MIGRATION_LOCK_KEY]).connection(connection);
    }
  } finally {
    await db.client.releaseConnection(connection);
  }
}

/** True when every known migration has been applied. */
export async function isSchemaCurrent(db: Knex): Promise<boolean> {
  const [, pending] = (await db.migrate.list({ migrationSource })) as [unknown[], unknown[]];
  return pending.length === 0;
}
