import { ConfigError, loadConfig, type Config } from '../config';
import { connectDatabase, type Database } from '../db/connect';
import type { Logger } from '../logger';

/** The environment as configuration; a bad variable ends the process with its one-line message. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
}

/** The database as DATABASE_URL and the DB_* variables say, its pool's warnings logged. */
export function connectConfiguredDatabase(
  config: Config,
  logger: Logger,
  options: { applicationName: string; migrate: boolean },
): Promise<Database> {
  return connectDatabase({
    url: config.DATABASE_URL,
    embeddedDir: config.EMBEDDED_DB_DIR,
    poolMax: config.DB_POOL_MAX,
    migrate: options.migrate,
    acquireTimeoutMs: config.DB_ACQUIRE_TIMEOUT_MS,
    statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
    namedStatements: config.DB_NAMED_STATEMENTS,
    applicationName: options.applicationName,
    onWarning: (message) => logger.warn(`database pool: ${message}`),
  });
}

/** The last log lines (stopped, or why not) must reach stdout before the process ends. */
export function exitAfterFlush(logger: Logger, code: number): void {
  setTimeout(() => process.exit(code), 1000).unref();
  logger.flush(() => process.exit(code));
}
