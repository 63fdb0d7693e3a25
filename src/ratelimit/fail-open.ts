import type { Logger } from '../logger';

export interface FailOpen {
  /** Runs a check; answers undefined (admit without counting) when the store fails or is paused. */
  run<T>(check: () => Promise<T>): Promise<T | undefined>;
  /** Records a failure seen outside `run` (Redis unreachable at start). */
  fail(err: unknown): void;
}

/**
 * Refusing everyone because the counter store is down would turn a Redis outage into an API
 * outage, so checks fail open. One warning per outage (not per request), one line when the store
 * answers again; after a failure, checks skip the store for `pauseMs`, so a slow store costs
 * at most one command timeout per pause rather than one per request.
 */
export function createFailOpen(logger: Logger, options: { pauseMs?: number; now?: () => number } = {}): FailOpen {
  const pauseMs = options.pauseMs ?? 1000;
  const now = options.now ?? Date.now;
  let failing = false;
  let pausedUntil = 0;

  function fail(err: unknown): void {
    pausedUntil = now() + pauseMs;
    if (failing) return;
    failing = true;
    const reason = err instanceof Error ? err.message : String(err);
    logger.warn({ reason }, 'rate limits: the counter store is unavailable; requests are admitted without rate limits until it answers');
  }

  return {
    async run(check) {
      if (failing && now() < pausedUntil) return undefined;
      try {
        const result = await check();
        if (failing) {
          failing = false;
          logger.info('rate limits: the counter store answers again; limits apply');
        }
        return result;
      } catch (err) {
        fail(err);
        return undefined;
      }
    },
    fail,
  };
}
