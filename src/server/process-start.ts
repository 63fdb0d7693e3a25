import { ConfigError, loadConfig, type Config, type LoadConfigOptions } from '../config';
import { connectDatabase, type Database } from '../db/connect';
import type { Logger } from '../logger';
import { resolveJwtSecrets, type JwtSecrets, type JwtSecretsSource } from '../auth/secrets';
import { webhookUrlPolicyFor } from '../webhooks/url-safety';
import { flushTracing, tracingSettings } from '../observability/tracing';

/** The environment as configuration; bad variables end the process with one message naming each. */
export function loadConfigOrExit(options: LoadConfigOptions = {}): Config {
  return orExit(() => loadConfig(process.env, options));
}

/** The JWT secrets (resolveJwtSecrets); missing ones end the process with one message naming each. */
export function resolveJwtSecretsOrExit(config: Config): { secrets: JwtSecrets; source: JwtSecretsSource } {
  return orExit(() => resolveJwtSecrets(config));
}

function orExit<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
}

/**
 * Once at start: the mode, and every safe default it relaxes (a warning when any is). Only an
 * explicit NODE_ENV=development or test relaxes anything.
 */
export function logStartMode(logger: Logger, config: Pick<Config, 'NODE_ENV'>, secrets?: JwtSecretsSource): void {
  const relaxations: string[] = [];
  if (webhookUrlPolicyFor(config.NODE_ENV) === 'development') {
    relaxations.push('webhook URLs may be http://localhost and private or loopback addresses');
  }
  if (secrets === 'per process') {
    relaxations.push('SESSION_SECRET/TOKEN_SECRET unset: random per process, so member sessions and playground tokens end at a restart and work on this instance only');
  }
  const mode = config.NODE_ENV ?? 'unset (production defaults)';
  const fields = { nodeEnv: config.NODE_ENV ?? null, relaxations, ...(secrets ? { secrets } : {}) };
  if (relaxations.length === 0) logger.info(fields, `mode: NODE_ENV ${mode}, no safe default relaxed`);
  else logger.warn(fields, `mode: NODE_ENV ${mode}, relaxed: ${relaxations.join('; ')}`);
  // Where spans go, never how (OTEL_EXPORTER_OTLP_HEADERS may hold a vendor's key). Off: not a word.
  const tracing = tracingSettings();
  if (tracing) logger.info({ tracing: { endpoint: tracing.shownEndpoint, protocol: tracing.protocol } }, `tracing: on, spans exported to ${tracing.shownEndpoint} (${tracing.protocol})`);
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

/**
 * The last spans (tracing on) go to the collector and the last log lines (stopped, or why not)
 * reach stdout before the process ends; both bounded by the timer.
 */
export function exitAfterFlush(logger: Logger, code: number): void {
  setTimeout(() => process.exit(code), 2000).unref();
  void flushTracing().finally(() => logger.flush(() => process.exit(code)));
}
