/**
 * When to try a request again and how long to wait first, after Stripe's SDKs: a bounded number
 * of retries, the server's `Retry-After` honoured, and otherwise exponential backoff with full
 * jitter (a random wait up to the exponential bound), so clients that failed together do not
 * come back together.
 */

/** The statuses worth another attempt: rate limited, or the service briefly unavailable. */
const RETRYABLE_STATUSES = new Set([429, 503]);

/** The first backoff bound; it doubles on each retry, up to MAX_BACKOFF_MS. */
const INITIAL_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;

/** A `Retry-After` longer than this is not waited for: the error is answered at once. */
export const MAX_RETRY_AFTER_MS = 20_000;

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

/**
 * `Retry-After` as milliseconds from `now`: either delay-seconds or an HTTP date (RFC 9110 10.2.3).
 * A date in the past is 0; anything unreadable is undefined.
 */
export function parseRetryAfter(header: string | null | undefined, now = Date.now()): number | undefined {
  if (header == null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // All three HTTP-date forms start with the day's name; Date.parse alone would take '1.5' for a date.
  if (!/^[A-Za-z]{3}/.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * How long to wait before retry number `retry` (1 for the first), or undefined when the answer's
 * `Retry-After` asks for more than MAX_RETRY_AFTER_MS. `Retry-After` is a floor: a little jitter
 * (up to 10%, at most 1 s) is added above it, never taken off.
 */
export function retryDelayMs(retry: number, retryAfterMs: number | undefined, random: () => number = Math.random): number | undefined {
  if (retryAfterMs !== undefined) {
    if (retryAfterMs > MAX_RETRY_AFTER_MS) return undefined;
    return retryAfterMs + Math.floor(random() * Math.min(1_000, retryAfterMs * 0.1));
  }
  const bound = Math.min(MAX_BACKOFF_MS, INITIAL_BACKOFF_MS * 2 ** (retry - 1));
  return Math.floor(random() * bound);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
