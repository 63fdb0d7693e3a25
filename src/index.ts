import './observability/tracing-start';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { runsWebhookWorkerInProcess, type Config } from './config';
import type { Database } from './db/connect';
import { connectConfiguredDatabase, exitAfterFlush, loadConfigOrExit, logStartMode, resolveJwtSecretsOrExit } from './server/process-start';
import * as apiKeysQueries from './db/api-keys';
import * as leads from './db/leads';
import { hashApiKeySecret } from './domain/api-key-secret';
import { createApp } from './app';
import { createLogger, type Logger } from './logger';
import { createGracefulShutdown } from './server/graceful-shutdown';
import { createHttpServer } from './server/http-server';
import { seedDemo } from '../seeds/01_demo_workspaces';
import { startIdempotencyCleanup } from './idempotency/expired-cleanup';
import { createRateLimiterFromConfig } from './ratelimit/rate-limiter-from-config';
import { startEventsRetention } from './events/retention';
import { startTrashPurge } from './trash/purge';
import { startPeriodicJob } from './server/periodic-job';
import { createDeliveryWorkerFromConfig } from './webhooks/worker-from-config';
import { createImportRunnerFromConfig, startImportsRetention } from './imports/runner-from-config';
import { createLiveUpdates } from './live/live-updates';
import { createNotificationListener } from './live/notification-listener';
import { createCacheInvalidation } from './auth/key-invalidation';
import { createDatabaseNodes } from './db/nodes';
import { createKeyRequestRecorder } from './api-key-requests/recorder';
import { startKeyRequestsRetention } from './api-key-requests/retention';

/** Starts the service: DATABASE_URL when set, else the embedded database (demo data on first start). */
async function main(): Promise<void> {
  // The service signs sessions and tokens: its missing secrets are named with any other bad variable.
  const config = loadConfigOrExit({ signsTokens: true });
  const jwtSecrets = resolveJwtSecretsOrExit(config);
  const logger = createLogger(config.LOG_LEVEL, { nodeEnv: config.NODE_ENV });
  logStartMode(logger, config, jwtSecrets.source);
  const database = await connectConfiguredDatabase(config, logger, { applicationName: 'workspace-api', migrate: true });
  const demo = database.embedded ? await loadDemo(database, config) : undefined;

  const nodes = createDatabaseNodes(database.db, {
    poolMax: config.DB_POOL_MAX, poolShare: config.DB_NODE_POOL_SHARE, queueTimeoutMs: config.DB_ACQUIRE_TIMEOUT_MS,
    failuresToOpen: config.DB_BREAKER_FAILURES, openMs: config.DB_BREAKER_OPEN_MS,
  }, logger);
  // The process's one LISTEN connection, shared by the key caches and the live updates' wake-ups.
  // It connects in the background: until its first round trip succeeds, keys get the short TTL.
  const listener = createNotificationListener({ url: config.DATABASE_URL ?? database.embedded!.url, db: database.db });
  const cacheInvalidation = createCacheInvalidation(listener, logger);
  const { live, stop: stopLiveUpdates } = createLiveUpdates({
    db: database.db, nodes, listener, credentialChanges: cacheInvalidation, logger, redisUrl: config.REDIS_URL, pollMs: config.LIVE_POLL_MS,
    settings: { pingMs: config.SSE_PING_MS, maxDurationMs: config.SSE_MAX_DURATION_MS, recheckMs: config.SSE_RECHECK_MS },
  });
  listener.start();
  logger.info(`live updates: wake-ups through ${config.REDIS_URL ? 'Redis pub/sub' : 'PostgreSQL LISTEN/NOTIFY'}`);
  const rateLimiter = await createRateLimiterFromConfig(config, logger);
  // Import jobs run where webhook deliveries do: here on the embedded database, else in `npm run worker`.
  const importRunner = runsWebhookWorkerInProcess(config) ? createImportRunnerFromConfig(config, database.db, logger, (orgId) => live.wakeUps.announce(orgId)) : undefined;
  // Each key's request log: written in the background; REQUEST_LOG_RETENTION_DAYS=0 keeps none.
  const keyRequests = config.REQUEST_LOG === 'on' && config.REQUEST_LOG_RETENTION_DAYS > 0 ? createKeyRequestRecorder({ db: database.db, logger }) : undefined;
  const server = createHttpServer(createApp({ db: database.db, hotReads: database.hotReads, config: { ...config, ...jwtSecrets.secrets }, logger, cacheInvalidation, rateLimiter, live, nodes, onImportQueued: () => importRunner?.wake(), keyRequests })).listen(config.PORT, config.HOST);
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  logger.info({ port, database: database.embedded ? 'embedded' : 'postgres' }, `listening on http://localhost:${port}`);
  if (demo) announceDemo(logger, demo, `http://localhost:${port}`);

  const idempotencyCleanup = startIdempotencyCleanup({ db: database.db, logger });
  const eventsRetention = startEventsRetention({ db: database.db, logger, retentionDays: config.EVENTS_RETENTION_DAYS });
  const keyRequestsRetention = startKeyRequestsRetention({ db: database.db, logger, retentionDays: config.REQUEST_LOG_RETENTION_DAYS });
  const trashPurge = startTrashPurge({ db: database.db, logger, retentionDays: config.TRASH_RETENTION_DAYS });
  const counterFolding = leads.startCounterFolding({ db: database.db, logger, startJob: startPeriodicJob });
  // The embedded database lives and dies with this process, so its deliveries run here too.
  const deliveryWorker = runsWebhookWorkerInProcess(config) ? createDeliveryWorkerFromConfig(config, database.db, logger) : undefined;
  deliveryWorker?.start();
  if (deliveryWorker) logger.info('webhook deliveries run in this process (WEBHOOK_WORKER_IN_PROCESS)');
  importRunner?.start();
  const importsRetention = importRunner && startImportsRetention({ db: database.db, logger, retentionDays: config.IMPORTS_RETENTION_DAYS });

  const closeResources = async () => {
    await stopLiveUpdates();
    await deliveryWorker?.stop();
    await importRunner?.stop();
    await importsRetention?.stop();
    await eventsRetention.stop();
    await trashPurge.stop();
    await keyRequestsRetention.stop();
    // The requests drained before this: what they recorded is written, within a bound.
    await keyRequests?.stop();
    await counterFolding.stop();
    await idempotencyCleanup.stop();
    await listener.stop();
    await rateLimiter?.close();
    await database.close();
  };
  const shutdown = createGracefulShutdown({
    server, logger, timeoutMs: config.SHUTDOWN_TIMEOUT_MS, closeResources,
    // Streams never finish by themselves: ended first, as a dropped connection, their clients reconnect to another instance and resume.
    beforeDrain: () => live.streams.closeAll(),
  });
  // `on`, not `once`: a second signal must reach the handler (which ignores it) rather than Node's
  // default action, which would kill the process mid-drain.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      // Deliveries in flight finish alongside the requests (each bounded by about one timeout).
      void deliveryWorker?.stop();
      void importRunner?.stop();
      void shutdown(signal).then((code) => exitAfterFlush(logger, code));
    });
  }
}

interface Demo {
  key: string;
  keyFile: string;
  orgId: string;
  developerMemberId: string | null;
  leadId: string | undefined;
}

/**
 * The embedded database is for trying the service: the demo is loaded on first start (no key file
 * yet, whatever the CLI may have made meanwhile), and its key kept for every later one.
 */
async function loadDemo(database: Database, config: Config): Promise<Demo | undefined> {
  const keyFile = join(resolve(config.EMBEDDED_DB_DIR), 'demo-key.txt');
  if (!existsSync(keyFile)) {
    const seeded = await seedDemo(database.db);
    writeFileSync(keyFile, `${seeded.key}\n`, { mode: 0o600 });
  }
  if (!existsSync(keyFile)) return undefined;
  const key = readFileSync(keyFile, 'utf8').trim();
  const demoKey = await apiKeysQueries.findForAuth(database.db, hashApiKeySecret(key));
  if (!demoKey) return undefined;
  const firstLead = await leads.listPage(database.db, database.hotReads, demoKey.orgId, {}, { pageSize: 1 }, 'leads');
  return { key, keyFile, orgId: demoKey.orgId, developerMemberId: demoKey.memberId, leadId: firstLead.data[0]?.id };
}

/**
 * Everything a newcomer needs for a first call, each line ready to paste: plain text on stderr (a
 * banner for the person at the terminal; stdout stays one JSON object per line), with the ids also
 * in one log line.
 */
function announceDemo(logger: Logger, demo: Demo, baseUrl: string): void {
  logger.info({ orgId: demo.orgId, memberId: demo.developerMemberId }, 'demo workspace loaded (its key is in the banner on stderr)');
  const auth = `-H "Authorization: Bearer ${demo.key}"`;
  const getById = demo.leadId && `${baseUrl}/api/v1/rpc/leads.getById?input=${encodeURIComponent(JSON.stringify({ json: { id: demo.leadId } }))}`;
  const lines = [
    '',
    'Workspace API is running on the embedded database with a demo workspace.',
    '',
    `  demo API key      ${demo.key}   (every scope; kept in ${shownPath(demo.keyFile)})`,
    `  workspace         ${demo.orgId}   "Acme Sales"   (all workspaces: npm run cli -- org list)`,
    ...(demo.developerMemberId
      ? [
          `  DEVELOPER member  ${demo.developerMemberId}`,
          `  member session    npm run cli -- member token --member ${demo.developerMemberId}`,
        ]
      : []),
    `  developer page    ${baseUrl}/developer`,
    `  API reference     ${baseUrl}/docs`,
    '',
    'Try:',
    `  curl ${auth} "${baseUrl}/api/v1/leads?pageSize=2"`,
    ...(getById ? [`  curl ${auth} "${getById}"`] : []),
    '',
  ];
  process.stderr.write(`${lines.join('\n')}\n`);
}

/** A path as the person at the terminal would type it: relative when under the current folder. */
function shownPath(path: string): string {
  const shown = relative(process.cwd(), path);
  return shown && !shown.startsWith('..') ? shown : path;
}

main().catch((err) => {
  console.error('failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
