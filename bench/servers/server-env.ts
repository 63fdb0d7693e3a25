import { createDb } from '../../src/db/knex';
import { HotReads } from '../../src/db/hot-reads';

/**
 * What every benchmark server shares with ours: the database, its pool size, a loopback port. The
 * hot reads run on that one pool (no second pool: the ceilings are knex's and Express's).
 */
export function serverSetup() {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is required');
  // Named statements as the service uses them, so the ceilings run the very same queries.
  const db = createDb({ url, poolMax: Number(process.env.DB_POOL_MAX ?? 10), namedStatements: true });
  // Exit normally when stopped, as the service does, so that --cpu-prof writes its profile.
  process.once('SIGTERM', () => process.exit(0));
  return { db, hotReads: HotReads.on(db), port: Number(process.env.PORT ?? 0), host: '127.0.0.1' };
}
