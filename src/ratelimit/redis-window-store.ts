import { Redis } from 'ioredis';
import type { WindowCount, WindowStore } from './window-store';

// One script per check, so instances sharing the Redis count atomically; Redis's own TTL ends
// each window, so instance clocks do not matter. A key left without a TTL gets one again.
const HIT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`;

const PEEK = `
local count = redis.call('GET', KEYS[1])
if not count then return {0, 0} end
return {tonumber(count), redis.call('PTTL', KEYS[1])}`;

interface WindowCommands {
  rateLimitHit(key: string, windowMs: number): Promise<[number, number]>;
  rateLimitPeek(key: string): Promise<[number, number]>;
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
  redis.defineCommand('rateLimitPeek', { numberOfKeys: 1, lua: PEEK });

  const toCount = ([count, ttl]: [number, number]): WindowCount => ({ count, resetMs: Math.max(0, ttl) });

  return {
    async hit(key, windowMs) {
      return toCount(await redis.rateLimitHit(key, windowMs));
    },
    async peek(key) {
      return toCount(await redis.rateLimitPeek(key));
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
