/** A key's requests in its current window, and how long until that window ends. */
export interface WindowCount {
  count: number;
  /** Milliseconds until the window ends and the count starts again from zero (0 when none is open). */
  resetMs: number;
}

/**
 * Fixed-window counters: a key's window opens with its first request and lasts `windowMs`;
 * the next request after it ends opens a new one. In memory (one instance) or in Redis (shared).
 */
export interface WindowStore {
  /** Counts one request against `key` and answers the count including it. */
  hit(key: string, windowMs: number): Promise<WindowCount>;
  /** The count so far, without adding to it. */
  peek(key: string): Promise<WindowCount>;
  close(): Promise<void>;
}

export const NO_WINDOW: WindowCount = { count: 0, resetMs: 0 };
