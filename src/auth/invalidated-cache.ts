import type { CacheChange, CacheInvalidation } from './key-invalidation';

/** With changes notified, this TTL bounds only what no trigger sees (a write with triggers disabled). */
export const DEFAULT_LIVE_CACHE_TTL_MS = 60_000;

export interface InvalidatedCacheOptions<V> {
  /** How long any entry is trusted: the bound on staleness when no notification can be relied on. */
  ttlMs: number;
  /** How long a found entry is trusted while the invalidation listener is live. */
  liveTtlMs: number;
  invalidation?: CacheInvalidation;
  maxEntries: number;
  now: () => number;
  /** Whether a change makes this entry stale. */
  affects: (value: V, change: CacheChange) => boolean;
  /** Whether a miss is remembered (for `ttlMs` only: an insert sends no notification). */
  cacheMisses: boolean;
}

interface Entry<V> {
  value: V | undefined;
  fetchedAt: number;
  /** Loaded while the listener was live and no change arrived during the load. */
  notified: boolean;
}

/**
 * A read-through cache whose entries live `ttlMs`, or `liveTtlMs` while every change is known to
 * be notified. Notifications delete matching entries at once; a reconnect drops everything.
 */
export function createInvalidatedCache<V>(options: InvalidatedCacheOptions<V>) {
  const { ttlMs, liveTtlMs, invalidation, maxEntries, now, affects, cacheMisses } = options;
  const entries = new Map<string, Entry<V>>();

  invalidation?.subscribe((change) => {
    if (change === 'reset') return entries.clear();
    for (const [key, entry] of entries) if (entry.value !== undefined && affects(entry.value, change)) entries.delete(key);
  });

  function isFresh(entry: Entry<V>): boolean {
    const age = now() - entry.fetchedAt;
    return age < ttlMs || (entry.notified && age < liveTtlMs && invalidation!.isLive());
  }

  return {
    async getOrLoad(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
      const cached = entries.get(key);
      if (cached && isFresh(cached)) return cached.value;
      // Age counts from before the query, and a change notified while it ran may concern this
      // very row (read before the change committed): such an answer gets the short TTL only.
      const fetchedAt = now();
      const liveVersion = invalidation?.isLive() ? invalidation.version() : undefined;
      const value = await load();
      entries.delete(key);
      if (value === undefined && !cacheMisses) return value;
      const notified = value !== undefined && liveVersion !== undefined && invalidation!.isLive() && invalidation!.version() === liveVersion;
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
      entries.set(key, { value, fetchedAt, notified });
      return value;
    },
  };
}
