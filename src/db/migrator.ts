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

/** True when every known migration has been applied. */
export async function isSchemaCurrent(db: Knex): Promise<boolean> {
  const [, pending] = (await db.migrate.list({ migrationSource })) as [unknown[], unknown[]];
  return pending.length === 0;
}
