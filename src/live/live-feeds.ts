import type { Db } from '../db/knex';
import type { DatabaseNodes } from '../db/nodes';
import type { Logger } from '../logger';
import { createEventFeeds, type EventFeeds } from './event-feeds';
import { createThrottledRefresh, type ThrottledRefresh } from './throttled-refresh';
import type { WakeUps } from './wake-ups';

/** The process's shared live readers, woken by `wakeUps`: what subscriptions follow. */
export interface LiveFeeds {
  events: EventFeeds;
  refresh: ThrottledRefresh;
  stop(): void;
}

export function createLiveFeeds(deps: { db: Db; nodes?: DatabaseNodes; wakeUps: WakeUps; logger: Logger; pollMs?: number }): LiveFeeds {
  const events = createEventFeeds(deps);
  const refresh = createThrottledRefresh(deps);
  return {
    events,
    refresh,
    stop() {
      events.stop();
      refresh.stop();
    },
  };
}
