/** The longest wait between two attempts, however many have failed. */
export const MAX_RETRY_DELAY_MS = 4 * 60 * 60_000;

/**
 * How long to wait after failed attempt number `attempt` (1 for the first): `baseMs` doubling each
 * time, capped at 4 hours, times a random factor in [0.8, 1.2) so endpoints that failed together
 * (a receiver's outage) are not all retried in the same instant.
 *
 * With the defaults (1 minute, 14 attempts) the waits are 1, 2, 4, 8, 16, 32, 64, 128 minutes,
 * then 4 hours five times: the 14th and last attempt comes about 24 hours after the first.
 */
export function retryDelayMs(attempt: number, baseMs: number, random: () => number = Math.random): number {
  const exponential = Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(exponential * (0.8 + 0.4 * random()));
}
