import '../observability/tracing-start-worker';
import { webhookLeaseMs, type Config } from '../config';
import { connectConfiguredDatabase, exitAfterFlush, loadConfigOrExit, logStartMode } from '../server/process-start';
import { startEventsRetention } from '../events/retention';
import { startTrashPurge } from '../trash/purge';
import { createLogger } from '../logger';
import { createDeliveryWorkerFromConfig } from './worker-from-config';
import { createImportRunnerFromConfig, startImportsRetention } from '../imports/runner-from-config';
import { createWakeUps, notifyTransport, type WakeUps } from '../live/wake-ups';
import { redisTransport } from '../live/redis-wake-ups';
import { createHeartbeats, startWorkerHealthServer, workerStallAfterMs, type WorkerHealthServer } from './worker-health';

/**
 * `npm run worker`: delivers webhooks, runs import jobs (and purges expired events and imports)
 * beside the API processes. Any number may run against one database: deliveries and imports are
 * leased, so each has one worker at a time.
 */
async function main(): Promise<void> {
  const config = configOrExit();
  const logger = createLogger(config.LOG_LEVEL, { nodeEnv: config.NODE_ENV });
  logStartMode(logger, config);
  // The API applies migrations (or the `migrate` service does): two processes migrating at once would collide.
  const database = await connectConfiguredDatabase(config, logger, { applicationName: 'workspace-api-worker', migrate: false });
  const stallAfterMs = workerStallAfterMs(config);
  const heartbeats = createHeartbeats(['deliveries', 'imports'], stallAfterMs);
  // Before any claim, so a port in use ends the process holding nothing. The hourly purges are not
  // watched: a stall there would show an hour late, and stops no delivery.
  const health: WorkerHealthServer | undefined = config.WORKER_HEALTH_PORT === 0
    ? undefined
    : await startWorkerHealthServer({ port: config.WORKER_HEALTH_PORT, host: config.HOST, heartbeats, logger }).catch((err: NodeJS.ErrnoException) => {
      throw new Error(`WORKER_HEALTH_PORT ${config.WORKER_HEALTH_PORT} on ${config.HOST}: ${err.code === 'EADDRINUSE' ? 'already in use' : err.message}`);
    });
  if (health) logger.info({ port: health.port, stallAfterMs }, `worker health on http://${config.HOST}:${health.port}/healthz`);
  const worker = createDeliveryWorkerFromConfig(config, database.db, logger, heartbeats.beat('deliveries'));
  worker.start();
  const retention = startEventsRetention({ db: database.db, logger, retentionDays: config.EVENTS_RETENTION_DAYS });
  const trashPurge = startTrashPurge({ db: database.db, logger, retentionDays: config.TRASH_RETENTION_DAYS });
  // An import's batches record events: the API instances' live readers hear of them as of any write.
  const wakeUps: WakeUps = createWakeUps(config.REDIS_URL ? redisTransport(config.REDIS_URL, () => wakeUps) : notifyTransport(database.db), logger);
  const imports = createImportRunnerFromConfig(config, database.db, logger, (orgId) => wakeUps.announce(orgId), heartbeats.beat('imports'));
  imports.start();
  const importsRetention = startImportsRetention({ db: database.db, logger, retentionDays: config.IMPORTS_RETENTION_DAYS });
  logger.info(
    { concurrency: config.WEBHOOK_WORKER_CONCURRENCY, timeoutMs: config.WEBHOOK_TIMEOUT_MS, leaseMs: webhookLeaseMs(config), orgIds: config.WEBHOOK_WORKER_ORG_IDS },
    'webhook worker started',
  );

  let stopping: Promise<void> | undefined;
  const shutdown = (signal: string) => {
    // A second signal is ignored rather than killing the process mid-drain.
    stopping ??= (async () => {
      logger.info({ signal }, 'webhook worker stopping: waiting for deliveries in flight');
      let code = 0;
      try {
        // Probes get no answer from here on: a stopping worker is neither alive nor worth restarting.
        await health?.close();
        await Promise.all([worker.stop(), imports.stop()]);
        await retention.stop();
        await trashPurge.stop();
        await importsRetention.stop();
        await wakeUps.stop();
        await database.close();
        logger.info('webhook worker stopped');
      } catch (err) {
        logger.error({ err }, 'webhook worker did not stop cleanly');
        code = 1;
      }
      exitAfterFlush(logger, code);
    })();
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => shutdown(signal));
}

/** A separate worker needs a server both processes reach; the embedded database lives inside the API process. */
function configOrExit(): Config & { DATABASE_URL: string } {
  const config = loadConfigOrExit();
  if (!config.DATABASE_URL) {
    console.error('Invalid environment variable DATABASE_URL: required by the webhook worker (on the embedded database the API process delivers webhooks itself)');
    process.exit(1);
  }
  return config as Config & { DATABASE_URL: string };
}

main().catch((err) => {
  console.error('webhook worker failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
