import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { WindowStore } from './window-store';

// One script per check, so instances sharing the Redis count atomically; Redis's own TTL ends
// each window, so instance clocks do not matter. A key left without a TTL gets one again.
const HIT = `
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`;

// An address's attempts: a hash of failed, pending and the window's id. Checking failed + pending
// against the limit and taking a unit is one script, so no number of instances or concurrent
// requests can take more units than the limit. ARGV: limit, windowMs, id for a window it opens.
const TAKE = `
local fields = redis.call('HMGET', KEYS[1], 'failed', 'pending', 'id')
local ttl = redis.call('PTTL', KEYS[1])
if not fields[3] then
  fields = {0, 0, ARGV[3]}
  redis.call('HSET', KEYS[1], 'failed', 0, 'pending', 0, 'id', ARGV[3])
end
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
local failed, pending = tonumber(fields[1]), tonumber(fields[2])
if failed + pending >= tonumber(ARGV[1]) then return {0, failed, pending, ttl, fields[3]} end
redis.call('HINCRBY', KEYS[1], 'pending', 1)
return {1, failed, pending + 1, ttl, fields[3]}`;

// Ends an attempt taken from window ARGV[1]: moves its unit to failed (ARGV[2] = '1') or gives
// it back. A later window (the one it came from has ended) is left alone.
const SETTLE = `
local fields = redis.call('HMGET', KEYS[1], 'failed', 'pending', 'id')
if not fields[3] then return {0, 0, 0} end
local failed, pending = tonumber(fields[1]), tonumber(fields[2])
if fields[3] == ARGV[1] and pending > 0 then
  pending = redis.call('HINCRBY', KEYS[1], 'pending', -1)
  if ARGV[2] == '1' then failed = redis.call('HINCRBY', KEYS[1], 'failed', 1) end
end
return {failed, pending, redis.call('PTTL', KEYS[1])}`;

interface WindowCommands {
  rateLimitHit(key: string, windowMs: number, cost: number): Promise<[number, number]>;
  rateLimitTake(key: string, limit: number, windowMs: number, newWindowId: string): Promise<[0 | 1, number, number, number, string]>;
  rateLimitSettle(key: string, windowId: string, failed: '0' | '1'): Promise<[number, number, number]>;
}

export interface RedisWindowStore extends WindowStore {
  /** Resolves true once connected, false on the first connection error or after `timeoutMs`. */
  waitUntilReady(timeoutMs: number): Promise<boolean>;
}

export interface RedisWindowStoreOptions {
  url: string;
  /** Prepended to every key, so several services (or test runs) can share one Redis. */
  keyPrefix: string;
  /** How long one check may take before the caller gives up on it (and fails open). */
  commandTimeoutMs?: number;
}

/**
 * Counters in Redis, shared by every instance using it. A check never waits for Redis: with no
 * offline queue a command fails at once while disconnected, and one that takes longer than
 * `commandTimeoutMs` fails too; the client keeps reconnecting in the background.
 */
export function createRedisWindowStore(options: RedisWindowStoreOptions): RedisWindowStore {
  const redis = new Redis(options.url, {
    keyPrefix: options.keyPrefix,
    enableOfflineQueue: false,
    commandTimeout: options.commandTimeoutMs ?? 100,
    connectTimeout: 1000,
    disconnectTimeout: 200, // a socket that never connected must not hold shutdown for the default 2 s
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
  }) as Redis & WindowCommands;
  // Connection errors surface in the checks that fail (logged once there); without a listener
  // ioredis would print each one.
  redis.on('error', () => undefined);
  redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT });
  redis.defineCommand('rateLimitTake', { numberOfKeys: 1, lua: TAKE });
  redis.defineCommand('rateLimitSettle', { numberOfKeys: 1, lua: SETTLE });
  // Ids of the windows this instance opens: unique across instances without asking anyone.
  const instanceId = randomBytes(6).toString('hex');
  let opened = 0;

  return {
    async hit(key, windowMs, cost = 1) {
      const [count, ttl] = await redis.rateLimitHit(key, windowMs, cost);
      return { count, resetMs: Math.max(0, ttl) };
    },
    async take(key, limit, windowMs) {
      const [taken, failed, pending, ttl, windowId] = await redis.rateLimitTake(key, limit, windowMs, `${instanceId}:${++opened}`);
      return { taken: taken === 1, window: { failed, pending, resetMs: Math.max(0, ttl) }, windowId };
    },
    async settle(key, windowId, failed) {
      const [failedCount, pending, ttl] = await redis.rateLimitSettle(key, windowId, failed ? '1' : '0');
      return { failed: failedCount, pending, resetMs: Math.max(0, ttl) };
    },
    waitUntilReady(timeoutMs) {
      if (redis.status === 'ready') return Promise.resolve(true);
      return new Promise((resolve) => {
        const settle = (ready: boolean) => {
          clearTimeout(timer);
          redis.off('ready', onReady);
          redis.off('error', onError);
          resolve(ready);
        };
        const onReady = () => settle(true);
        const onError = () => settle(false);
        const timer = setTimeout(() => settle(false), timeoutMs);
        redis.once('ready', onReady);
        redis.once('error', onError);
      });
    },
    async close() {
      if (redis.status === 'ready') {
        await redis.quit().catch(() => redis.disconnect());
      } else {
        redis.disconnect();
      }
    },
  };
}
