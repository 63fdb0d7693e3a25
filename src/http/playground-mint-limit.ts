import { createMemoryWindowStore } from '../ratelimit/memory-window-store';
import type { WindowCount } from '../ratelimit/window-store';

/** Playground tokens a member may mint per minute: the page needs one an hour; a loop needs a stop. */
export const PLAYGROUND_MINTS_PER_MINUTE = 10;
const WINDOW_MS = 60_000;

export interface MintVerdict {
  allowed: boolean;
  /** Mints left in the current window. */
  remaining: number;
  /** Whole seconds until the window ends, never 0 (a client told to retry in 0 s retries at once). */
  resetSeconds: number;
}

/** Where mints are counted: the rate limiter's window store (Redis when REDIS_URL is set), or this process's memory. */
export interface MintCounter {
  /** Counts one mint against `key`; undefined when the store cannot answer and the limiter fails open. */
  hit(key: string, windowMs: number): Promise<WindowCount | undefined>;
}

export interface MintLimiter {
  readonly limit: number;
  readonly windowSeconds: number;
  /** Counts one mint for `key` (a member) and says whether it is within the limit. */
  take(key: string): Promise<MintVerdict>;
}

/**
 * A fixed window per member. The general rate limiter counts per API key or token, which a member
 * without a token yet does not have, so mints have a budget of their own, kept where the rate
 * limiter keeps its counters: with REDIS_URL every instance shares it (N instances do not allow N
 * times the budget); without, this process counts alone. A store that cannot answer lets the mint
 * through, as the rate limits fail open.
 */
export function createMintLimiter(options: { counter?: MintCounter; limit?: number; windowMs?: number; now?: () => number } = {}): MintLimiter {
  const { limit = PLAYGROUND_MINTS_PER_MINUTE, windowMs = WINDOW_MS } = options;
  const counter = options.counter ?? createMemoryWindowStore(options.now);
  return {
    limit,
    windowSeconds: windowMs / 1000,
    async take(key) {
      const window = await counter.hit(`playground-mints:${key}`, windowMs);
      if (!window) return { allowed: true, remaining: limit, resetSeconds: windowMs / 1000 };
      const resetSeconds = Math.max(1, Math.ceil(window.resetMs / 1000));
      return { allowed: window.count <= limit, remaining: Math.max(0, limit - window.count), resetSeconds };
    },
  };
}
