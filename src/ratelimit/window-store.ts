/** A key's requests in its current window, and how long until that window ends. */
export interface WindowCount {
  count: number;
  /** Milliseconds until the window ends and the count starts again from zero (0 when none is open). */
  resetMs: number;
}

/** An address's authentication attempts in its current window. */
export interface AttemptCount {
  /** Attempts that failed: they keep their unit until the window ends. */
  failed: number;
  /** Attempts still being authenticated: each holds a unit until it is settled. */
  pending: number;
  resetMs: number;
}

export interface TakenAttempt {
  /** False when failed + pending had reached the limit: nothing was taken. */
  taken: boolean;
  /** The window once the attempt is in it (pending includes it when taken). */
  window: AttemptCount;
  /** The window the unit came from, so settling never touches a later window. */
  windowId: string;
}

/**
 * Fixed-window counters: a key's window opens with its first request and lasts `windowMs`;
 * the next request after it ends opens a new one. In memory (one instance) or in Redis (shared).
 * Each method is one atomic step, so concurrent callers cannot both pass a check meant for one.
 */
export interface WindowStore {
  /** Counts one request (`cost` requests' worth, 1 unless given) against `key` and answers the count including it. */
  hit(key: string, windowMs: number, cost?: number): Promise<WindowCount>;
  /** Takes a unit for an attempt unless failed + pending has reached `limit`; check and take are one step. */
  take(key: string, limit: number, windowMs: number): Promise<TakenAttempt>;
  /** Ends a taken attempt: its unit is kept as a failure or given back. Answers the window after it. */
  settle(key: string, windowId: string, failed: boolean): Promise<AttemptCount>;
  close(): Promise<void>;
}

export const NO_ATTEMPTS: AttemptCount = { failed: 0, pending: 0, resetMs: 0 };
