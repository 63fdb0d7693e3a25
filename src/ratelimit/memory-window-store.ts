import { NO_WINDOW, type WindowCount, type WindowStore } from './window-store';

/**
 * Counters in this process: right for one instance only (several would each admit the full
 * budget). Ended windows are swept at most once a window, so memory follows the active keys.
 */
export function createMemoryWindowStore(now: () => number = Date.now): WindowStore {
  const windows = new Map<string, { count: number; endsAt: number }>();
  let nextSweepAt = 0;

  function sweep(at: number, windowMs: number): void {
    if (at < nextSweepAt) return;
    nextSweepAt = at + windowMs;
    for (const [key, window] of windows) if (window.endsAt <= at) windows.delete(key);
  }

  return {
    async hit(key: string, windowMs: number): Promise<WindowCount> {
      const at = now();
      sweep(at, windowMs);
      let window = windows.get(key);
      if (!window || window.endsAt <= at) {
        window = { count: 0, endsAt: at + windowMs };
        windows.set(key, window);
      }
      window.count += 1;
      return { count: window.count, resetMs: window.endsAt - at };
    },
    async peek(key: string): Promise<WindowCount> {
      const at = now();
      const window = windows.get(key);
      if (!window || window.endsAt <= at) return NO_WINDOW;
      return { count: window.count, resetMs: window.endsAt - at };
    },
    async close(): Promise<void> {
      windows.clear();
    },
  };
}
