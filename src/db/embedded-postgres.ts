import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';

export interface EmbeddedPostgres {
  /** A postgres:// URL for the real `pg` driver. */
  url: string;
  stop(): Promise<void>;
}

/**
 * PostgreSQL compiled to WebAssembly (PGlite) behind a loopback socket, so the service keeps its
 * one real `pg` driver and pool with no database server installed. PGlite runs one query at a
 * time: the socket server queues the others.
 */
export async function startEmbeddedPostgres(options: { dataDir?: string; port?: number } = {}): Promise<EmbeddedPostgres> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { btree_gin } = await import('@electric-sql/pglite/contrib/btree_gin');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');

  let dataDir: string | undefined;
  if (options.dataDir) {
    dataDir = resolve(options.dataDir);
    mkdirSync(dataDir, { recursive: true });
  }
  const db = await PGlite.create({ dataDir, extensions: { pg_trgm, btree_gin } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: options.port ?? 0, maxConnections: 100 });
  await server.start();
  const url = `postgres://postgres:postgres@${server.getServerConn()}/postgres`;
  return {
    url,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
