import { createDb } from '../../src/db/knex';

/** What every benchmark server shares with ours: the database, its pool size, a loopback port. */
export function serverSetup() {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is required');
  // Named statements as the service uses them, so the ceilings run the very same queries.
  const db = createDb({ url, poolMax: Number(process.env.DB_POOL_MAX ?? 10), namedStatements: true });
  // Exit normally when stopped, as the service does, so that --cpu-prof writes its profile.
  process.once('SIGTERM', () => process.exit(0));
  return { db, port: Number(process.env.PORT ?? 0), host: '127.0.0.1' };
}
