import { createDb, type Db } from './knex';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres';
import { migrateLatest } from './migrator';

export interface Database {
  db: Db;
  /** Set when the database is the embedded one this process started. */
  embedded: EmbeddedPostgres | undefined;
  close(): Promise<void>;
}

/**
 * Connects to DATABASE_URL when given, else starts the embedded database in `embeddedDir`;
 * either way pending migrations are applied first (unless `migrate: false`).
 */
export async function connectDatabase(options: { url?: string; embeddedDir: string; poolMax: number; migrate?: boolean }): Promise<Database> {
  const embedded = options.url ? undefined : await startEmbeddedPostgres({ dataDir: options.embeddedDir });
  // PGlite runs every socket connection in its one session: statements of two pooled connections
  // would interleave (a failed one aborting the other's transaction), so it gets one connection.
  const db = createDb({ url: options.url ?? embedded!.url, poolMax: embedded ? 1 : options.poolMax });
  try {
    if (options.migrate !== false) await migrateLatest(db);
  } catch (err) {
    await db.destroy();
    await embedded?.stop();
    throw err;
  }
  return {
    db,
    embedded,
    async close() {
      await db.destroy();
      await embedded?.stop();
    },
  };
}
