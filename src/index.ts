import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runsWebhookWorkerInProcess, type Config } from './config';
import type { Database } from './db/connect';
import { connectConfiguredDatabase, exitAfterFlush, loadConfigOrExit, logStartMode, resolveJwtSecretsOrExit } from './server/process-start';
import * as orgsQueries from './db/queries/orgs.queries';
import * as apiKeysQueries from './db/queries/api-keys.queries';
import { hashApiKeySecret } from './domain/api-key-secret';
import { createApp } from './app';
import { createLogger, type Logger } from './logger';
import { createGracefulShutdown } from './server/graceful-shutdown';
import { createHttpServer } from './server/http-server';
import { seedDemo } from '../seeds/01_demo_workspaces';
import { createCacheInvalidationListener } from './auth/key-invalidation';
import { startIdempotencyCleanup } from './idempotency/expired-cleanup';
import { createRateLimiterFromConfig } from './ratelimit/rate-limiter-from-config';
import { startEventsRetention } from './events/retention';
import { startCounterFolding } from './db/counter-folding';
import { createDeliveryWorkerFromConfig } from './webhooks/worker-from-config';

/** Starts the service: DATABASE_URL when set, else the embedded database (demo data on first start). */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const jwtSecrets = resolveJwtSecretsOrExit(config);
  const logger = createLogger(config.LOG_LEVEL, { nodeEnv: config.NODE_ENV });
  logStartMode(logger, config, jwtSecrets.source);
  const database = await connectConfiguredDatabase(config, logger, { applicationName: 'workspace-api', migrate: true });
  if (database.embedded) await announceDemoKey(database, config, logger);

  // Connects in the background: until its first round trip succeeds, keys get the short TTL. The
  // embedded database delivers a NOTIFY only to the connection that sent it, so it gets none.
  const cacheInvalidation = config.DATABASE_URL
    ? createCacheInvalidationListener({ url: config.DATABASE_URL, db: database.db, logger })
    : undefined;
  if (cacheInvalidation) cacheInvalidation.start();
  else logger.info(`embedded database: verified API keys are trusted for ${config.KEY_CACHE_TTL_MS} ms (no change notifications)`);
  const rateLimiter = await createRateLimiterFromConfig(config, logger);
  const server = createHttpServer(createApp({ db: database.db, config: { ...config, ...jwtSecrets.secrets }, logger, cacheInvalidation, rateLimiter })).listen(config.PORT, config.HOST);
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  logger.info({ port, database: database.embedded ? 'embedded' : 'postgres' }, `listening on http://localhost:${port}`);

  const idempotencyCleanup = startIdempotencyCleanup({ db: database.db, logger });
  const eventsRetention = startEventsRetention({ db: database.db, logger, retentionDays: config.EVENTS_RETENTION_DAYS });
  const counterFolding = startCounterFolding({ db: database.db, logger });
  // The embedded database lives in this process, so no separate worker can reach it: deliver here.
  const deliveryWorker = runsWebhookWorkerInProcess(config) ? createDeliveryWorkerFromConfig(config, database.db, logger) : undefined;
  deliveryWorker?.start();
  if (deliveryWorker) logger.info('webhook deliveries run in this process (WEBHOOK_WORKER_IN_PROCESS)');

  const closeResources = async () => {
    await deliveryWorker?.stop();
    await eventsRetention.stop();
    await counterFolding.stop();
    await idempotencyCleanup.stop();
    await cacheInvalidation?.stop();
    await rateLimiter?.close();
    await database.close();
  };
  const shutdown = createGracefulShutdown({ server, logger, timeoutMs: config.SHUTDOWN_TIMEOUT_MS, closeResources });
  // `on`, not `once`: a second signal must reach the handler (which ignores it) rather than Node's
  // default action, which would kill the process mid-drain.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      // Deliveries in flight finish alongside the requests (each bounded by about one timeout).
      void deliveryWorker?.stop();
      void shutdown(signal).then((code) => exitAfterFlush(logger, code));
    });
  }
}

/** The embedded database is for trying the service: load the demo on first start and show its key each time. */
async function announceDemoKey(database: Database, config: Config, logger: Logger): Promise<void> {
  const keyFile = join(resolve(config.EMBEDDED_DB_DIR), 'demo-key.txt');
  if ((await orgsQueries.count(database.db)) === 0) {
    const demo = await seedDemo(database.db);
    writeFileSync(keyFile, `${demo.key}\n`, { mode: 0o600 });
  }
  if (existsSync(keyFile)) {
    const key = readFileSync(keyFile, 'utf8').trim();
    logger.info(`demo API key (every scope, workspace "Acme Sales"): ${key}`);
    const demo = await apiKeysQueries.findForAuth(database.db, hashApiKeySecret(key));
    if (demo) logger.info({ orgId: demo.orgId, memberId: demo.memberId }, `demo workspace ${demo.orgId}; its DEVELOPER member ${demo.memberId} (for \`npm run cli -- member token --member ${demo.memberId}\`)`);
    logger.info(`try: curl -H "Authorization: Bearer ${key}" "http://localhost:${config.PORT}/api/v1/leads?pageSize=2"`);
  }
}

main().catch((err) => {
  console.error('failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
