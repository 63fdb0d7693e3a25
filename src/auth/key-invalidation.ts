import type { Logger } from '../logger';
import { CHANGES_CHANNEL, type CacheChange } from '../db/cache-changes';
import type { NotificationListener } from '../live/notification-listener';

export type { CacheChange };

/** What a cache reads: whether every change is known to reach this process, and the changes themselves. */
export interface CacheInvalidation {
  isLive(): boolean;
  /** Bumped by every change and every loss or return of the listener, so a load that raced one can tell. */
  version(): number;
  /** `reset`: notifications may have been missed (the listener came back); drop everything. */
  subscribe(onChange: (change: CacheChange | 'reset') => void): () => void;
}

/**
 * The key caches' invalidation: the changes announced on `api_key_changes` (announceCacheChange),
 * heard on the process's LISTEN connection. A cache may trust an entry for long only while that
 * connection is live; it drops everything each time the connection comes (back) to life.
 */
export function createCacheInvalidation(listener: NotificationListener, logger: Logger): CacheInvalidation {
  const subscribers = new Set<(change: CacheChange | 'reset') => void>();
  let version = 0;

  function emit(change: CacheChange | 'reset'): void {
    for (const onChange of subscribers) onChange(change);
  }

  listener.subscribe(CHANGES_CHANNEL, (payload) => {
    const change = parse(payload);
    if (change === 'ignored') return;
    version += 1;
    // A payload this code cannot read is still a change to something: drop everything.
    emit(change ?? 'reset');
  });

  listener.watch((state, err) => {
    if (state === 'unavailable') {
      return logger.warn({ err }, 'API key cache invalidation unavailable; verified keys are trusted for KEY_CACHE_TTL_MS only');
    }
    version += 1;
    if (state === 'lost') {
      return logger.warn({ err }, 'API key cache invalidation lost; verified keys are trusted for KEY_CACHE_TTL_MS only until it is back');
    }
    emit('reset');
    logger.info('API key cache invalidation: listening; verified keys are trusted until a change is notified');
  });

  return {
    isLive: () => listener.isLive(),
    version: () => version,
    subscribe(onChange) {
      subscribers.add(onChange);
      return () => subscribers.delete(onChange);
    },
  };
}

function parse(payload: string | undefined): CacheChange | 'ignored' | undefined {
  try {
    const value = JSON.parse(payload ?? '') as CacheChange | { kind: 'probe' };
    // Instances of earlier versions probed their connection on this channel (a rolling deploy): not a change.
    if (value.kind === 'probe') return 'ignored';
    if (value.kind === 'key' && typeof value.orgId === 'string' && typeof value.keyId === 'string') return value;
    if (value.kind === 'member' && typeof value.orgId === 'string' && typeof value.memberId === 'string') return value;
    if (value.kind === 'org' && typeof value.orgId === 'string') return value;
    // kind 'all' (`workspace-api cache flush`) falls through: unreadable means drop everything.
  } catch {
    // fall through: unreadable
  }
  return undefined;
}
