import { NO_ATTEMPTS, type AttemptCount, type TakenAttempt, type WindowCount, type WindowStore } from './window-store';

interface Window {
  id: string;
  count: number;
  failed: number;
  pending: number;
  endsAt: number;
}

/**
 * Counters in this process: right for one instance only (several would each admit the full
 * budget). Ended windows are swept at most once a window, so memory follows the active keys.
 * Each method runs to its end without awaiting, which is what makes it atomic here.
 */
export function createMemoryWindowStore(now: () => number = Date.now): WindowStore {
  const windows = new Map<string, Window>();
  let nextSweepAt = 0;
  let opened = 0;

  function sweep(at: number, windowMs: number): void {
    if (at < nextSweepAt) return;
    nextSweepAt = at + windowMs;
    for (const [key, window] of windows) if (window.endsAt <= at) windows.delete(key);
  }

  function openWindow(key: string, at: number, windowMs: number): Window {
    sweep(at, windowMs);
    let window = windows.get(key);
    if (!window || window.endsAt <= at) {
      window = { id: String(++opened), count: 0, failed: 0, pending: 0, endsAt: at + windowMs };
      windows.set(key, window);
    }
    return window;
  }

  const attemptsOf = (window: Window, at: number): AttemptCount => ({ failed: window.failed, pending: window.pending, resetMs: window.endsAt - at });

  return {
    async hit(key, windowMs, cost = 1): Promise<WindowCount> {
      const at = now();
      const window = openWindow(key, at, windowMs);
      window.count += cost;
      return { count: window.count, resetMs: window.endsAt - at };
    },
    async take(key, limit, windowMs): Promise<TakenAttempt> {
      const at = now();
      const window = openWindow(key, at, windowMs);
      const taken = window.failed + window.pending < limit;
      if (taken) window.pending += 1;
      return { taken, window: attemptsOf(window, at), windowId: window.id };
    },
    async settle(key, windowId, failed): Promise<AttemptCount> {
      const at = now();
      const window = windows.get(key);
      if (!window || window.endsAt <= at) return NO_ATTEMPTS;
      if (window.id === windowId && window.pending > 0) {
        window.pending -= 1;
        if (failed) window.failed += 1;
      }
      return attemptsOf(window, at);
    },
    async close(): Promise<void> {
      windows.clear();
    },
  };
}
