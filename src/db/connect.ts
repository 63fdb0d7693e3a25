import pg from 'pg';
import { createDb, type Db, type DbOptions } from './knex';
import { startEmbeddedPostgres, type EmbeddedPostgres, type EmbeddedRole } from '../embedded-database';
import { MIGRATION_LOCK_KEY, migrateLatest } from './migrator';
import { HotReads } from './hot-reads';

/** The hot reads are part of the database handle: tests and tools that build an app on a pool of their own take them from here. */
export { HotReads };

export interface Database {
  db: Db;
  /** Where the leads' hot reads run (hot-reads.ts): a pool of their own with named statements, else `db`. */
  hotReads: HotReads;
  /** Set when the database is the embedded one (started by this process, or shared with the one that did). */
  embedded: EmbeddedPostgres | undefined;
  close(): Promise<void>;
}

export interface ConnectOptions {
  url?: string;
  embeddedDir: string;
  poolMax: number;
  migrate?: boolean;
  /** DB_ACQUIRE_TIMEOUT_MS: how long a request waits for a connection before a 503. */
  acquireTimeoutMs?: number;
  /** DB_STATEMENT_TIMEOUT_MS for the pool's statements (not for migrations, which may build indexes for minutes). */
  statementTimeoutMs?: number;
  applicationName?: string;
  onWarning?: (message: string) => void;
  /** DB_NAMED_STATEMENTS. */
  namedStatements?: boolean;
  /** On the embedded database: a `service` (the default) owns it; a `tool` (the CLI) uses a running service's. */
  embeddedRole?: EmbeddedRole;
}

/**
 * Connects to DATABASE_URL when given, else starts the embedded database in `embeddedDir`;
 * either way pending migrations are applied first (unless `migrate: false`), on a connection of
 * their own without the statement timeout.
 */
export async function connectDatabase(options: ConnectOptions): Promise<Database> {
  const embedded = options.url ? undefined : await startEmbeddedPostgres({ dataDir: options.embeddedDir, role: options.embeddedRole });
  const url = options.url ?? embedded!.url;
  const { acquireTimeoutMs, applicationName, onWarning } = options;
  try {
    if (options.migrate !== false) await migrateOnce(url, { acquireTimeoutMs, applicationName, onWarning });
  } catch (err) {
    await embedded?.stop();
    throw err;
  }
  const namedStatements = options.namedStatements === true;
  const poolOptions = { url, poolMax: options.poolMax, acquireTimeoutMs, statementTimeoutMs: options.statementTimeoutMs, applicationName, onWarning, namedStatements };
  const db = createDb(poolOptions);
  // The hot reads get a pool of their own, of the same size, without pg's query_timeout
  // (hot-reads.ts says why): up to twice DB_POOL_MAX connections in all.
  const hotReads = namedStatements ? HotReads.onPoolOfTheirOwn(db, poolOptions) : HotReads.on(db);
  return {
    db,
    hotReads,
    embedded,
    async close() {
      await db.destroy();
      await hotReads.close();
      await embedded?.stop();
    },
  };
}

/**
 * Processes starting together on one new database (`npm start` and the CLI on a new folder, or
 * several instances) would each create knex's own tables: a session lock, held on a connection of
 * its own, lets one migrate at a time; the others then find nothing left to do.
 */
async function migrateOnce(url: string, options: Omit<DbOptions, 'url' | 'poolMax'>): Promise<void> {
  const lock = new pg.Client({ connectionString: url, application_name: options.applicationName });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const db = createDb({ url, poolMax: 1, ...options });
    try {
      await migrateLatest(db);
    } finally {
      await db.destroy();
    }
  } finally {
    await lock.end();
  }
}
