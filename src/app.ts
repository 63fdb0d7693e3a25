import express, { type Express } from 'express';
import type { Config } from './config';
import type { Db } from './db/knex';
import { HotReads } from './db/hot-reads';
import type { Logger } from './logger';
import { createKeyAuthenticator } from './auth/key-authenticator';
import { createProcedureRegistry } from './procedures';
import type { Registry } from './rpc/registry';
import { rpcRouter } from './http/rpc-route';
import { leadRoutes } from './http/leads-rest/lead-routes';
import { importRoutes } from './http/imports-rest/import-routes';
import { errorHandler, notFound } from './http/error-handler';
import { docsRouter } from './http/docs-route';
import { createJwtKeys, type JwtSecrets } from './auth/secrets';
import { createAuthenticator } from './auth/authenticate';
import { createMemberAccessReader } from './auth/developer-access';
import { playgroundRouter } from './http/playground-route';
import { createMintLimiter } from './http/playground-mint-limit';
import { developerRouter } from './http/developer-api-route';
import { createMetrics } from './observability/metrics';
import { requestLog } from './observability/request-log';
import { traceRequests } from './observability/tracing';
import { edgeHeaders } from './http/edge-headers';
import { createRouteLabeller } from './observability/route-label';
import { healthRouter } from './http/health-route';
import { metricsRouter } from './http/metrics-route';
import type { CacheInvalidation } from './auth/key-invalidation';
import type { RateLimiter } from './ratelimit/rate-limiter';
import { webhookUrlPolicyFor } from './webhooks/url-safety';
import { createSubscriptionRegistry } from './procedures';
import type { SubscriptionRegistry } from './rpc/registry';
import { subscriptionRouter } from './http/subscription-route';
import { streamTokenRouter } from './http/stream-token-route';
import { createStreamTokenAuthenticator } from './auth/stream-access';
import { createLocalLive, DEFAULT_STREAM_SETTINGS, type LiveDeps } from './live/live-updates';
import { createDatabaseNodes, DEFAULT_NODE_SETTINGS, type DatabaseNodes } from './db/nodes';
import type { KeyRequestRecorder } from './api-key-requests/recorder';

export interface AppDeps {
  db: Db;
  /** Where the leads' hot reads run: the database handle's (connect.ts); on `db` alone when absent. */
  hotReads?: HotReads;
  /** The JWT secrets are resolved before (resolveJwtSecrets): the app never falls back to one of its own. */
  config: Pick<Config, 'BODY_LIMIT' | 'KEY_CACHE_TTL_MS'> & JwtSecrets
    & Partial<Pick<Config, 'METRICS_TOKEN'>>
    & Partial<Pick<Config, 'TRUST_PROXY' | 'NODE_ENV' | 'CHECK_OUTPUTS' | 'IMPORT_QUEUE_LIMIT' | 'TRASH_RETENTION_DAYS' | 'WEBHOOK_TIMEOUT_MS'>>
    & { /** How long a verified key is trusted while `cacheInvalidation` is live (60 s by default). */ KEY_CACHE_LIVE_TTL_MS?: number };
  logger: Logger;
  /** The procedures to serve; the full registry unless a test gives its own. */
  registry?: Registry;
  /** Key changes heard on the process's LISTEN connection (index.ts starts it); without it keys are trusted for KEY_CACHE_TTL_MS only. */
  cacheInvalidation?: CacheInvalidation;
  /** Rate limits of the action endpoints and the REST list (index.ts builds it from the config); none when absent. */
  rateLimiter?: RateLimiter;
  /** Told of each answer outside its output schema (CHECK_OUTPUTS); tests fail on any. */
  onOutputMismatch?(procedure: string, issues: unknown): void;
  /** The subscriptions to serve; the full list unless a test gives its own. */
  subscriptions?: SubscriptionRegistry;
  /** Live updates (index.ts: woken across instances); one process's own when absent. */
  live?: LiveDeps;
  /** The database's nodes, with their bulkheads and breakers (index.ts sizes them from the config); defaults when absent. */
  nodes?: DatabaseNodes;
  /** Told when an upload queues an import (index.ts: the in-process import runner looks at once). */
  onImportQueued?(): void;
  /** The largest import file taken (tests set less); MAX_IMPORT_BYTES when absent. */
  importMaxBytes?: number;
  /** Each API key's request log (index.ts: on unless REQUEST_LOG=off); nothing recorded when absent. */
  keyRequests?: KeyRequestRecorder;
}

/** Builds the HTTP application; never listens (index.ts does), so tests drive it directly. */
export function createApp(deps: AppDeps): Express {
  const { db, config, logger, registry = createProcedureRegistry(), cacheInvalidation, rateLimiter, onOutputMismatch } = deps;
  const hotReads = deps.hotReads ?? HotReads.on(db);
  const subscriptions = deps.subscriptions ?? createSubscriptionRegistry(registry);
  const nodes = deps.nodes ?? createDatabaseNodes(db, DEFAULT_NODE_SETTINGS, logger);
  const live = deps.live ?? createLocalLive(db, logger, DEFAULT_STREAM_SETTINGS, cacheInvalidation, nodes);
  const app = express();
  app.disable('x-powered-by');
  // req.ip (what failed authentications are counted against) reads X-Forwarded-For only from these proxies.
  app.set('trust proxy', config.TRUST_PROXY ?? false);
  app.set('etag', false);
  const metrics = createMetrics(hotReads.pools(), nodes);
  const serverSpans = traceRequests();
  if (serverSpans) app.use(serverSpans);
  app.use(requestLog({ logger, metrics, labelsOf: createRouteLabeller(app, (name) => registry.has(name) || subscriptions.has(name)), keyRequests: deps.keyRequests }));
  // Before every router, so every answer (errors and preflights too) carries helmet's headers and CORS.
  app.use(edgeHeaders());

  const authenticator = createKeyAuthenticator({
    db,
    cacheTtlMs: config.KEY_CACHE_TTL_MS,
    invalidation: cacheInvalidation,
    liveCacheTtlMs: config.KEY_CACHE_LIVE_TTL_MS,
    onBackgroundError: (err) => logger.warn({ err }, 'could not record API key use'),
  });
  const jwtKeys = createJwtKeys(config);
  const readAccess = createMemberAccessReader({
    db, cacheTtlMs: config.KEY_CACHE_TTL_MS, invalidation: cacheInvalidation, liveCacheTtlMs: config.KEY_CACHE_LIVE_TTL_MS,
  });
  const authenticate = createAuthenticator({ keys: authenticator, tokenKey: jwtKeys.token, readAccess });
  const webhookUrlPolicy = webhookUrlPolicyFor(config.NODE_ENV);
  const outputMismatch = config.CHECK_OUTPUTS
    ? (procedure: string, issues: unknown) => {
      logger.error({ procedure, issues }, 'answer outside its output schema');
      onOutputMismatch?.(procedure, issues);
    }
    : undefined;
  // The API routes first, the busiest first: Express walks every router mounted before the one
  // that answers, and no two of these share a path.
  // A committed call that recorded events wakes the live readers of its workspace, here and on
  // every instance (runProcedure calls it only then: ctx.effects).
  const onCommitted = (orgId: string) => live.wakeUps.announce(orgId);
  app.use(subscriptionRouter({
    subscriptions, db, hotReads, authenticate, rateLimiter, webhookUrlPolicy, live: live.feeds, streams: live.streams, settings: live.settings,
    streamTokens: createStreamTokenAuthenticator({ keys: authenticator, tokenKey: jwtKeys.token, readAccess }),
  }));
  app.use(rpcRouter({
    registry, db, hotReads, nodes, authenticate, rateLimiter, webhookUrlPolicy, onOutputMismatch: outputMismatch, onCommitted, trashRetentionDays: config.TRASH_RETENTION_DAYS, webhookTimeoutMs: config.WEBHOOK_TIMEOUT_MS,
  }, config.BODY_LIMIT));
  // The REST leads routes (the list, create, getById, update, delete) run through runProcedure with the action endpoints' deps.
  app.use(leadRoutes({ registry, db, hotReads, nodes, authenticate, rateLimiter, webhookUrlPolicy, onOutputMismatch: outputMismatch, onCommitted }, config.BODY_LIMIT));
  app.use(importRoutes({
    registry, db, hotReads, nodes, authenticate, rateLimiter, webhookUrlPolicy, onOutputMismatch: outputMismatch, onCommitted,
    queueLimit: config.IMPORT_QUEUE_LIMIT ?? 10, maxBytes: deps.importMaxBytes, onQueued: deps.onImportQueued,
  }));
  app.use(streamTokenRouter({ subscriptions, authenticate, jwtKeys, rateLimiter }, config.BODY_LIMIT));
  app.use(healthRouter({ db, pools: hotReads.pools(), nodes }));
  app.use(metricsRouter({ registry: metrics.registry, token: config.METRICS_TOKEN }));
  // Mints are counted where the rate limits are: with REDIS_URL, shared by every instance.
  app.use(playgroundRouter({ jwtKeys, readAccess, mintLimiter: createMintLimiter({ counter: rateLimiter }) }, config.BODY_LIMIT));

  app.use(docsRouter({ registry, subscriptions }));

  app.use(developerRouter({ db, registry, jwtKeys, readAccess }, config.BODY_LIMIT));
  app.use(notFound);
  app.use(errorHandler(logger));
  return app;
}
