import type { Express } from 'express';
import { createApp } from '../../src/app';
import { createDb, type Db } from '../../src/db/knex';
import { createLogger } from '../../src/logger';
import type { Registry } from '../../src/rpc/registry';
import type { CacheInvalidation } from '../../src/auth/key-invalidation';
import type { RateLimiter } from '../../src/ratelimit/rate-limiter';
import type { TrustProxy } from '../../src/ratelimit/trust-proxy';
import { TEST_JWT_SECRETS } from './test-secrets';

export function testDatabaseUrl(): string {
  const url = process.env.WSAPI_TEST_DB_URL;
  if (!url) throw new Error('WSAPI_TEST_DB_URL is not set: run tests through jest (global setup)');
  return url;
}

/** True when the run is on a real PostgreSQL server (several processes and true concurrency work). */
export const onRealPostgres = process.env.WSAPI_TEST_DB_KIND === 'postgres' || process.env.WSAPI_TEST_DB_KIND === 'embedded';

/** A pool on the run's database, with named statements as the service uses them (on real PostgreSQL). */
export function createTestDb(poolMax = 5): Db {
  return createDb({ url: testDatabaseUrl(), poolMax, namedStatements: onRealPostgres });
}

export interface TestContext {
  db: Db;
  app: Express;
  close(): Promise<void>;
}

/** The real app on the run's database; one per test file, closed in afterAll. */
export function createTestContext(
  options: {
    bodyLimit?: string; keyCacheTtlMs?: number; registry?: Registry; cacheInvalidation?: CacheInvalidation; db?: Db;
    /** Rate limiting is off unless a limiter is given; it is closed with the context. */
    rateLimiter?: RateLimiter; trustProxy?: TrustProxy;
  } = {},
): TestContext {
  const db = options.db ?? createTestDb();
  const app = createApp({
    db,
    // NODE_ENV=test: webhooks go to the tests' own loopback receivers.
    config: { ...TEST_JWT_SECRETS, NODE_ENV: 'test', BODY_LIMIT: options.bodyLimit ?? '1mb', KEY_CACHE_TTL_MS: options.keyCacheTtlMs ?? 1000, TRUST_PROXY: options.trustProxy },
    logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    registry: options.registry,
    cacheInvalidation: options.cacheInvalidation,
    rateLimiter: options.rateLimiter,
  });
  const close = async () => {
    await options.rateLimiter?.close();
    await db.destroy();
  };
  return { db, app, close };
}

/** `describe` that runs only on real PostgreSQL (several processes, true concurrency), with a notice otherwise. */
export function describeOnRealPostgres(name: string, fn: () => void): void {
  if (onRealPostgres) {
    describe(name, fn);
  } else {
    // eslint-disable-next-line no-console
    console.log(`skipped on the embedded database (needs real PostgreSQL): ${name}`);
    describe.skip(name, fn);
  }
}
