import type { Config } from '../config';
import type { Logger } from '../logger';
import { createFailOpen } from './fail-open';
import { keyLimitsOf } from './limits';
import { createMemoryWindowStore } from './memory-window-store';
import { createRateLimiter, type RateLimiter } from './rate-limiter';
import { createRedisWindowStore } from './redis-window-store';

export const DEFAULT_REDIS_KEY_PREFIX = 'wsapi:ratelimit:';

type RateLimitConfig = Pick<Config, 'RATE_LIMIT_PER_MINUTE' | 'RATE_LIMIT_FAILED_AUTH_PER_MINUTE' | 'REDIS_URL'>;

/**
 * The service's limiter: none when `RATE_LIMIT_PER_MINUTE=0`; counters in Redis when `REDIS_URL`
 * is set (waiting up to `readyTimeoutMs` for it, then starting anyway and failing open), in this
 * process otherwise.
 */
export async function createRateLimiterFromConfig(
  config: RateLimitConfig,
  logger: Logger,
  options: { redisKeyPrefix?: string; readyTimeoutMs?: number; commandTimeoutMs?: number } = {},
): Promise<RateLimiter | undefined> {
  if (config.RATE_LIMIT_PER_MINUTE === 0) {
    logger.info('rate limits: off (RATE_LIMIT_PER_MINUTE=0)');
    return undefined;
  }
  const limits = { keyLimits: keyLimitsOf(config.RATE_LIMIT_PER_MINUTE), failedAuthLimit: config.RATE_LIMIT_FAILED_AUTH_PER_MINUTE };
  if (!config.REDIS_URL) {
    logger.warn('rate limits: counters are kept in this process (REDIS_URL is not set), right for a single instance only: each instance would admit the full budget');
    return createRateLimiter({ store: createMemoryWindowStore(), logger, ...limits });
  }
  const store = createRedisWindowStore({ url: config.REDIS_URL, keyPrefix: options.redisKeyPrefix ?? DEFAULT_REDIS_KEY_PREFIX, commandTimeoutMs: options.commandTimeoutMs });
  const failOpen = createFailOpen(logger);
  if (await store.waitUntilReady(options.readyTimeoutMs ?? 1000)) logger.info('rate limits: counters in Redis, shared by every instance');
  else failOpen.fail(new Error('Redis did not answer at start'));
  return createRateLimiter({ store, logger, failOpen, ...limits });
}
