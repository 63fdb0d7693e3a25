import type { Db } from '../db/knex';
import type { DatabaseNodes } from '../db/nodes';
import type { Logger } from '../logger';
import { createCacheInvalidationListener, type CacheInvalidationListener } from './notification-listener';
import { createOpenStreams, type StreamSettings } from './open-streams';
import { createLiveFeeds } from './live-feeds';
import { redisTransport } from './redis-wake-ups';
import { createWakeUps, notifyTransport, WAKE_UPS_CHANNEL, type WakeUps } from './wake-ups';
import type { LiveDeps } from '../app';

export interface LiveUpdatesOptions {
  db: Db;
  /** The feeds' reads and the streams' key checks run within their workspace's node's bulkhead and breaker. */
  nodes?: DatabaseNodes;
  /** The database URL the LISTEN connection opens (the coordinator's on Citus). */
  databaseUrl: string;
  logger: Logger;
  settings: StreamSettings;
  /** Each feed's unwoken read interval (LIVE_POLL_MS). */
  pollMs?: number;
  /** Wake-ups through Redis pub/sub instead of NOTIFY. */
  redisUrl?: string;
}

/**
 * The process's live-update wiring: a committed write wakes its workspace's readers on every
 * instance, through Redis when `redisUrl` is set, else NOTIFY on the database, heard on the
 * process's one LISTEN connection, which the key caches' invalidation shares (and whose
 * reconnection, when wake-ups may have been missed, wakes every reader).
 */
export function createLiveUpdates(options: LiveUpdatesOptions): { live: LiveDeps; cacheInvalidation: CacheInvalidationListener; stop(): Promise<void> } {
  const { db, nodes, databaseUrl, logger, settings, redisUrl } = options;
  const wakeUps: WakeUps = createWakeUps(redisUrl ? redisTransport(redisUrl, () => wakeUps) : notifyTransport(db), logger);
  const cacheInvalidation = createCacheInvalidationListener({
    url: databaseUrl, db, logger,
    channels: redisUrl ? {} : { [WAKE_UPS_CHANNEL]: (payload) => wakeUps.receive(payload) },
  });
  if (!redisUrl) cacheInvalidation.subscribe((change) => change === 'reset' && wakeUps.wakeAll());
  const feeds = createLiveFeeds({ db, nodes, wakeUps, logger, pollMs: options.pollMs });
  const streams = createOpenStreams(settings, { invalidation: cacheInvalidation, logger, nodes });
  return {
    live: { wakeUps, feeds, streams, settings },
    cacheInvalidation,
    async stop() {
      streams.closeAll();
      streams.stop();
      feeds.stop();
      await wakeUps.stop();
    },
  };
}
