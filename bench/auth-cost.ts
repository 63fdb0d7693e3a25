/**
 * Per-request cost of API key authentication (`authenticate()` of src/auth/key-authenticator.ts):
 * a cached key (the hot path, no database round trip) against a key read from the database on
 * every call (cache TTL 0), and the two pure steps the hot path cannot skip.
 *
 *   npx tsx bench/auth-cost.ts                      # embedded database (a temporary one)
 *   DATABASE_URL=postgres://... npx tsx bench/auth-cost.ts
 *
 * The real LISTEN connection keeps the cache on its long TTL; should it not go live within 3 s, a
 * stand-in that is always live does (same code path).
 */
import { cpus } from 'node:os';
import { connectDatabase } from '../src/db/connect';
import { createLogger } from '../src/logger';
import { createKeyAuthenticator } from '../src/auth/key-authenticator';
import { createCacheInvalidationListener, type CacheInvalidation } from '../src/auth/key-invalidation';
import { hashApiKeySecret, isWellFormedApiKey } from '../src/domain/api-key-secret';
import { issueApiKey } from '../src/auth/api-keys';
import { knownScopes } from '../src/procedures/scopes';
import * as orgsQueries from '../src/db/queries/orgs.queries';

const HOT_CALLS = Number(process.env.AUTH_BENCH_CALLS ?? 100_000);
const COLD_CALLS = Number(process.env.AUTH_BENCH_COLD_CALLS ?? 2_000);

/** Microseconds per call of `fn`, over `calls` calls after a warm-up of a tenth as many. */
async function microsPerCall(calls: number, fn: () => unknown): Promise<number> {
  for (let i = 0; i < Math.ceil(calls / 10); i += 1) await fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i += 1) await fn();
  return Number(process.hrtime.bigint() - start) / 1000 / calls;
}

async function main(): Promise<void> {
  const logger = createLogger('warn');
  const database = await connectDatabase({ url: process.env.DATABASE_URL, embeddedDir: '', poolMax: 5 });
  const url = process.env.DATABASE_URL ?? database.embedded!.url;
  const listener = createCacheInvalidationListener({ url, db: database.db, logger });
  listener.start();
  const deadline = Date.now() + 3000;
  while (!listener.isLive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  const alwaysLive: CacheInvalidation = { isLive: () => true, version: () => 0, subscribe: () => () => {} };
  const invalidation = listener.isLive() ? listener : alwaysLive;

  const org = await orgsQueries.create(database.db, { name: 'auth bench', tier: 'BUSINESS', features: [], phoneRegion: 'GB' });
  const { key } = await issueApiKey(database.db, knownScopes(), { orgId: org.id, name: 'bench', scopes: ['leads.read'], expiresAt: null });
  const header = `Bearer ${key}`;
  const cached = createKeyAuthenticator({ db: database.db, cacheTtlMs: 1000, invalidation });
  const uncached = createKeyAuthenticator({ db: database.db, cacheTtlMs: 0 });

  const hot = await microsPerCall(HOT_CALLS, () => cached.authenticate(header));
  const cold = await microsPerCall(COLD_CALLS, () => uncached.authenticate(header));
  const checksum = await microsPerCall(HOT_CALLS, () => isWellFormedApiKey(key));
  const sha256 = await microsPerCall(HOT_CALLS, () => hashApiKeySecret(key));

  const where = process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PostgreSQL';
  console.log(`auth cost per request: Node ${process.version}, ${cpus().length} cores, ${where}, invalidation ${invalidation === listener ? 'LISTEN live' : 'stand-in (always live)'}`);
  console.log(`| case | us per call | calls |`);
  console.log(`|---|---:|---:|`);
  console.log(`| authenticate(), cached key (hot path, no DB round trip) | ${hot.toFixed(2)} | ${HOT_CALLS} |`);
  console.log(`| authenticate(), key read from the database every call | ${cold.toFixed(1)} | ${COLD_CALLS} |`);
  console.log(`| of which: checksum (isWellFormedApiKey) | ${checksum.toFixed(2)} | ${HOT_CALLS} |`);
  console.log(`| of which: SHA-256 of the secret | ${sha256.toFixed(2)} | ${HOT_CALLS} |`);

  await database.db('organisations').where({ id: org.id }).del(); // cascades to the key
  await listener.stop();
  await database.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
