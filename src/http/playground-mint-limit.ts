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

export interface MintLimiter {
  readonly limit: number;
  readonly windowSeconds: number;
  /** Counts one mint for `key` (a member) and says whether it is within the limit. */
  take(key: string): MintVerdict;
  /** Windows held in memory (for tests). */
  size(): number;
}

/**
 * A fixed window per member, in this process's memory. The general rate limiter counts per API key
 * or token, which a member without a token yet does not have. With several instances each allows
 * `limit` (shared counters would take the rate limiter's window store). Ended windows are swept once a window, so memory follows the
 * members who minted in the last minute.
 */
export function createMintLimiter(options: { limit?: number; windowMs?: number; now?: () => number } = {}): MintLimiter {
  const { limit = PLAYGROUND_MINTS_PER_MINUTE, windowMs = WINDOW_MS, now = Date.now } = options;
  const windows = new Map<string, { start: number; count: number }>();
  let lastSweep = now();

  function sweep(at: number): void {
    if (at - lastSweep < windowMs) return;
    lastSweep = at;
    for (const [key, window] of windows) if (at - window.start >= windowMs) windows.delete(key);
  }

  return {
    limit,
    windowSeconds: windowMs / 1000,
    take(key) {
      const at = now();
      sweep(at);
      let window = windows.get(key);
      if (!window || at - window.start >= windowMs) {
        window = { start: at, count: 0 };
        windows.set(key, window);
      }
      const allowed = window.count < limit;
      if (allowed) window.count += 1;
      const resetSeconds = Math.max(1, Math.ceil((window.start + windowMs - at) / 1000));
      return { allowed, remaining: limit - window.count, resetSeconds };
    },
    size: () => windows.size,
  };
}
