import type { Db } from '../db/knex';
import type { DatabaseNodes } from '../db/nodes';
import type { Logger } from '../logger';
import type { NotificationListener } from './notification-listener';
import { createOpenStreams, type CredentialChanges, type OpenStreams, type StreamSettings } from './open-streams';
import { createLiveFeeds, type LiveFeeds } from './live-feeds';
import { redisTransport } from './redis-wake-ups';
import { createWakeUps, notifyTransport, WAKE_UPS_CHANNEL, type WakeUps } from './wake-ups';

/** Live updates as the app serves them: wake-ups (shared with other instances or not), the feeds they wake, the open streams. */
export interface LiveDeps {
  wakeUps: WakeUps;
  feeds: LiveFeeds;
  streams: OpenStreams;
  settings: StreamSettings;
}

/** Subscriptions' defaults (SSE_PING_MS, SSE_MAX_DURATION_MS, SSE_RECHECK_MS). */
export const DEFAULT_STREAM_SETTINGS: StreamSettings = { pingMs: 10_000, maxDurationMs: 1_800_000, recheckMs: 500 };

export interface LiveUpdatesOptions {
  db: Db;
  /** The feeds' reads and the streams' key checks run within their workspace's node's bulkhead and breaker. */
  nodes?: DatabaseNodes;
  /** The process's LISTEN connection (started and stopped by its owner): NOTIFY wake-ups arrive on it. */
  listener: NotificationListener;
  /** The key caches' invalidation: a key, member or workspace change re-checks every open stream at once. */
  credentialChanges?: CredentialChanges;
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
 * process's one LISTEN connection (whose reconnection, when wake-ups may have been missed, wakes
 * every reader).
 */
export function createLiveUpdates(options: LiveUpdatesOptions): { live: LiveDeps; stop(): Promise<void> } {
  const { db, nodes, listener, credentialChanges, logger, settings, redisUrl } = options;
  const wakeUps: WakeUps = createWakeUps(redisUrl ? redisTransport(redisUrl, () => wakeUps) : notifyTransport(db), logger);
  const unlisten = redisUrl
    ? []
    : [
      listener.subscribe(WAKE_UPS_CHANNEL, (payload) => wakeUps.receive(payload)),
      listener.watch((state) => state === 'live' && wakeUps.wakeAll()),
    ];
  const feeds = createLiveFeeds({ db, nodes, wakeUps, logger, pollMs: options.pollMs });
  const streams = createOpenStreams(settings, { credentialChanges, logger, nodes });
  return {
    live: { wakeUps, feeds, streams, settings },
    async stop() {
      streams.closeAll();
      streams.stop();
      feeds.stop();
      for (const stop of unlisten) stop();
      await wakeUps.stop();
    },
  };
}

/** Live updates within one process (no other instance hears of its writes): tests, and what createApp makes when given none. */
export function createLocalLive(db: Db, logger: Logger, settings: StreamSettings = DEFAULT_STREAM_SETTINGS, credentialChanges?: CredentialChanges, nodes?: DatabaseNodes): LiveDeps {
  const wakeUps = createWakeUps(undefined, logger);
  return { wakeUps, feeds: createLiveFeeds({ db, nodes, wakeUps, logger }), streams: createOpenStreams(settings, { credentialChanges, logger, nodes }), settings };
}
