import { createDb, type Db, type DbOptions } from './knex';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres';
import { migrateLatest } from './migrator';
import { runCompiledStatementsOn } from './compiled-statements';

export interface Database {
  db: Db;
  /** The pool `db`'s compiled statements run on, forcing generic plans (with named statements only). */
  compiledStatementsDb: Db | undefined;
  /** Set when the database is the embedded one this process started. */
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
  /** DB_NAMED_STATEMENTS; ignored (off) on the embedded database, whose connections share one session. */
  namedStatements?: boolean;
}

/**
 * Connects to DATABASE_URL when given, else starts the embedded database in `embeddedDir`;
 * either way pending migrations are applied first (unless `migrate: false`), on a connection of
 * their own without the statement timeout.
 */
export async function connectDatabase(options: ConnectOptions): Promise<Database> {
  const embedded = options.url ? undefined : await startEmbeddedPostgres({ dataDir: options.embeddedDir });
  const url = options.url ?? embedded!.url;
  const { acquireTimeoutMs, applicationName, onWarning } = options;
  try {
    if (options.migrate !== false) await migrateOnce(url, { acquireTimeoutMs, applicationName, onWarning });
  } catch (err) {
    await embedded?.stop();
    throw err;
  }
  // PGlite runs every socket connection in its one session: statements of two pooled connections
  // would interleave (a failed one aborting the other's transaction), so it gets one connection.
  const poolMax = embedded ? 1 : options.poolMax;
  const namedStatements = !embedded && options.namedStatements === true;
  const poolOptions = { url, poolMax, acquireTimeoutMs, statementTimeoutMs: options.statementTimeoutMs, applicationName, onWarning, namedStatements };
  const db = createDb(poolOptions);
  // The hot reads' compiled statements get a pool of their own, of the same size, whose sessions
  // plan them once (compiled-statements.ts): up to twice DB_POOL_MAX connections in all.
  const compiledStatementsDb = namedStatements ? createDb({ ...poolOptions, forceGenericPlans: true, readsTimedByCaller: true }) : undefined;
  if (compiledStatementsDb) runCompiledStatementsOn(db, compiledStatementsDb);
  return {
    db,
    compiledStatementsDb,
    embedded,
    async close() {
      await db.destroy();
      await compiledStatementsDb?.destroy();
      await embedded?.stop();
    },
  };
}

async function migrateOnce(url: string, options: Omit<DbOptions, 'url' | 'poolMax'>): Promise<void> {
  const db = createDb({ url, poolMax: 1, ...options });
  try {
    await migrateLatest(db);
  } finally {
    await db.destroy();
  }
}
