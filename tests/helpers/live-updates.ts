import { createCacheInvalidation } from '../../src/auth/key-invalidation';
import { createLiveUpdates, type LiveUpdatesOptions } from '../../src/live/live-updates';
import { createNotificationListener, type ListenerOptions } from '../../src/live/notification-listener';

/**
 * Live updates as index.ts wires them: the process's LISTEN connection (not started), the key
 * caches' invalidation heard on it, and the wake-ups, feeds and open streams.
 */
export function wireLiveUpdates(
  options: Omit<LiveUpdatesOptions, 'listener' | 'credentialChanges'> & { databaseUrl: string; listener?: Partial<ListenerOptions> },
) {
  const listener = createNotificationListener({ url: options.databaseUrl, db: options.db, ...options.listener });
  const cacheInvalidation = createCacheInvalidation(listener, options.logger);
  return { ...createLiveUpdates({ ...options, listener, credentialChanges: cacheInvalidation }), listener, cacheInvalidation };
}
