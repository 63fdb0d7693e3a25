import type { Express } from 'express';
import { createApp } from '../../src/app';
import type { LiveDeps } from '../../src/live/live-updates';
import { createDb, type Db } from '../../src/db/knex';
import { HotReads } from '../../src/db/connect';
import { createLogger, type Logger } from '../../src/logger';
import type { Registry } from '../../src/rpc/registry';
import type { CacheInvalidation } from '../../src/auth/key-invalidation';
import type { RateLimiter } from '../../src/ratelimit/rate-limiter';
import type { TrustProxy } from '../../src/ratelimit/trust-proxy';
import { TEST_JWT_SECRETS } from './test-secrets';
import { recordOutputMismatch } from './output-mismatches';
import type { KeyRequestRecorder } from '../../src/api-key-requests/recorder';

export function testDatabaseUrl(): string {
  const url = process.env.WSAPI_TEST_DB_URL;
  if (!url) throw new Error('WSAPI_TEST_DB_URL is not set: run tests through jest (global setup)');
  return url;
}

/** A pool on the run's database, with named statements as the service uses them. */
export function createTestDb(poolMax = 5): Db {
  // knex's warnings (a dropped connection, an acquire that failed after a test closed its pool)
  // go nowhere: tests assert the answers, and a console line after a file's tests end fails jest.
  return createDb({ url: testDatabaseUrl(), poolMax, namedStatements: true, onWarning: () => undefined });
}

export interface TestContext {
  db: Db;
  /** The app's hot reads: on `db` alone unless given. */
  hotReads: HotReads;
  app: Express;
  close(): Promise<void>;
}

/** The real app on the run's database; one per test file, closed in afterAll. */
export function createTestContext(
  options: {
    bodyLimit?: string; keyCacheTtlMs?: number; registry?: Registry; cacheInvalidation?: CacheInvalidation; db?: Db;
    /** With `db`: the database handle's (connect.ts), to serve the hot reads from their own pool. */
    hotReads?: HotReads;
    /** Rate limiting is off unless a limiter is given; it is closed with the context. */
    rateLimiter?: RateLimiter; trustProxy?: TrustProxy;
    /** Live updates (subscriptions); one process's own with the default settings when absent. */
    live?: LiveDeps;
    /** Where the app logs (request lines included); nowhere unless TEST_LOG_LEVEL is set. */
    logger?: Logger;
    /** The largest import file taken (MAX_IMPORT_BYTES when absent). */
    importMaxBytes?: number;
    /** Each key's request log; nothing recorded when absent. Stopped with the context. */
    keyRequests?: KeyRequestRecorder;
  } = {},
): TestContext {
  const db = options.db ?? createTestDb();
  const hotReads = options.hotReads ?? HotReads.on(db);
  const app = createApp({
    db,
    hotReads,
    // NODE_ENV=test: webhooks go to the tests' own loopback receivers.
    config: { ...TEST_JWT_SECRETS, NODE_ENV: 'test', CHECK_OUTPUTS: true, BODY_LIMIT: options.bodyLimit ?? '1mb', KEY_CACHE_TTL_MS: options.keyCacheTtlMs ?? 1000, TRUST_PROXY: options.trustProxy },
    logger: options.logger ?? createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    registry: options.registry,
    cacheInvalidation: options.cacheInvalidation,
    rateLimiter: options.rateLimiter,
    onOutputMismatch: recordOutputMismatch,
    live: options.live,
    importMaxBytes: options.importMaxBytes,
    keyRequests: options.keyRequests,
  });
  const close = async () => {
    await options.rateLimiter?.close();
    await options.keyRequests?.stop(0);
    await db.destroy();
  };
  return { db, hotReads, app, close };
}
