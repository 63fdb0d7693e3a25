import type { Db } from '../db/knex';
import { onNode, type DatabaseNodes } from '../db/nodes';
import { isUnavailable } from '../errors/to-app-error';
import type { Logger } from '../logger';
import * as eventsQueries from '../db/events';
import type { EventPosition, PlacedEvent, WorkspaceEvent } from '../db/events';
import type { WakeUps } from './wake-ups';
import { traceFanOut } from '../observability/tracing';

/** A live reader of one workspace's events: each event exactly once, in catch-up order, from where it started. */
export interface EventReader {
  deliver(events: readonly WorkspaceEvent[]): void;
  /** The catch-up could not be read: the stream ends (a 5xx, so the client resumes from its last event). */
  fail(err: unknown): void;
}

export interface EventFeeds {
  /**
   * Starts `reader` after `from` (an event's position, or `now`): the events since, read by this
   * reader alone, then the live ones the workspace's shared feed reads once for all its readers.
   * Answers how to stop.
   */
  follow(orgId: string, from: EventPosition | 'now', reader: EventReader): Promise<() => void>;
  /** Open feeds (metrics, tests). */
  size(): number;
  stop(): void;
}

export interface EventFeedOptions {
  db: Db;
  /** Reads of a workspace's events run within its node's bulkhead and breaker (absent: straight). */
  nodes?: DatabaseNodes;
  wakeUps: WakeUps;
  logger: Logger;
  /** Each feed also reads this often on its own, so a wake-up lost (an instance died after its commit) only delays. */
  pollMs?: number;
}

const PAGE = 500;
/** While events sit above the horizon (an older transaction open), read again after this, doubling to a second. */
const HELD_BACK_FIRST_RETRY_MS = 10;
const HELD_BACK_MAX_RETRY_MS = 1000;

interface Follower {
  reader: EventReader;
  position: EventPosition;
  /** Batches the feed read while this follower caught up on its own; sent once it has. */
  pending: PlacedEvent[][] | undefined;
}

interface Feed {
  orgId: string;
  position: EventPosition;
  followers: Set<Follower>;
  reading: boolean;
  again: boolean;
  retryMs: number;
  retry: NodeJS.Timeout | undefined;
  poll: NodeJS.Timeout;
}

/**
 * One feed per workspace with live readers in this process: on each wake-up it reads the events
 * after the last it read, once, and hands them to every follower, so a thousand readers of one
 * workspace cost one query per change, not a thousand.
 *
 * No gap, no repeat: a follower registers before it catches up, and the feed's batches that
 * arrive meanwhile wait; its catch-up reads up to a horizon no older than the feed's last read,
 * so it covers everything before those batches; then only events after the follower's own last
 * one are sent. Positions only grow (the horizon rule of listAfter), so comparing them is enough.
 */
export function createEventFeeds({ db, nodes, wakeUps, logger, pollMs = 10_000 }: EventFeedOptions): EventFeeds {
  const readAfter = (orgId: string, position: EventPosition) =>
    onNode(nodes, orgId, () => eventsQueries.readAfter(db, orgId, position, PAGE));

  const feeds = new Map<string, Feed | Promise<Feed>>();

  const unsubscribe = wakeUps.subscribe((orgId) => {
    if (orgId === undefined) for (const feed of feeds.values()) wake(feed);
    else {
      const feed = feeds.get(orgId);
      if (feed) wake(feed);
    }
  });

  function wake(feed: Feed | Promise<Feed>): void {
    if (!(feed instanceof Promise)) void read(feed);
  }

  async function open(orgId: string): Promise<Feed> {
    const position = await eventsQueries.currentPosition(db);
    const feed: Feed = {
      orgId, position, followers: new Set(), reading: false, again: false, retryMs: HELD_BACK_FIRST_RETRY_MS, retry: undefined,
      // Spread over the interval, so feeds opened together do not read together.
      poll: setInterval(() => void read(feed), pollMs * (0.75 + Math.random() / 2)).unref(),
    };
    return feed;
  }

  async function feedOf(orgId: string): Promise<Feed> {
    let feed = feeds.get(orgId);
    if (!feed) {
      const opening = open(orgId);
      feeds.set(orgId, opening);
      opening.then((opened) => feeds.set(orgId, opened), () => feeds.delete(orgId));
      feed = opening;
    }
    return feed;
  }

  function close(feed: Feed): void {
    clearInterval(feed.poll);
    clearTimeout(feed.retry);
    if (feeds.get(feed.orgId) === feed) feeds.delete(feed.orgId);
  }

  async function read(feed: Feed): Promise<void> {
    if (feed.reading) {
      feed.again = true;
      return;
    }
    feed.reading = true;
    clearTimeout(feed.retry);
    feed.retry = undefined;
    // One round is one span (tracing on): its counts, never the events themselves.
    const heldBack = await traceFanOut(feed.orgId, async (span) => {
      let heldBack = false;
      let events = 0;
      try {
        do {
          feed.again = false;
          let page;
          do {
            page = await readAfter(feed.orgId, feed.position);
            if (page.entries.length > 0) {
              events += page.entries.length;
              feed.position = page.entries.at(-1)!.position;
              for (const follower of feed.followers) hand(follower, page.entries);
            }
          } while (page.more && feed.followers.size > 0);
          heldBack = page.heldBack;
        } while (feed.again && feed.followers.size > 0);
        if (!heldBack) feed.retryMs = HELD_BACK_FIRST_RETRY_MS;
      } catch (err) {
        // A node known to be down is said once, by its breaker; each feed's retry is not news.
        logger[isUnavailable(err) ? 'debug' : 'warn']({ err, orgId: feed.orgId }, 'live updates: could not read the workspace\'s events; trying again');
        heldBack = true;
      } finally {
        feed.reading = false;
      }
      span?.setAttributes({ 'workspace.live.events': events, 'workspace.live.followers': feed.followers.size, 'workspace.live.held_back': heldBack });
      return heldBack;
    });
    if (heldBack && feed.followers.size > 0) {
      feed.retry = setTimeout(() => void read(feed), feed.retryMs);
      feed.retryMs = Math.min(HELD_BACK_MAX_RETRY_MS, feed.retryMs * 2);
    }
  }

  function hand(follower: Follower, entries: readonly PlacedEvent[]): void {
    if (follower.pending) {
      follower.pending.push(entries as PlacedEvent[]);
      return;
    }
    // Live, a follower is behind the whole batch: only a follower that caught up into it compares each.
    const fresh = eventsQueries.isAfter(entries[0]!.position, follower.position)
      ? entries
      : entries.filter((entry) => eventsQueries.isAfter(entry.position, follower.position));
    if (fresh.length === 0) return;
    follower.position = fresh.at(-1)!.position;
    follower.reader.deliver(fresh.map((entry) => entry.event));
  }

  async function catchUp(orgId: string, follower: Follower, isStopped: () => boolean): Promise<void> {
    let page;
    do {
      page = await readAfter(orgId, follower.position);
      if (isStopped()) return;
      if (page.entries.length > 0) {
        follower.position = page.entries.at(-1)!.position;
        follower.reader.deliver(page.entries.map((entry) => entry.event));
      }
    } while (page.more);
    const waiting = follower.pending ?? [];
    follower.pending = undefined;
    for (const entries of waiting) hand(follower, entries);
  }

  return {
    async follow(orgId, from, reader) {
      const start = from === 'now' ? await eventsQueries.currentPosition(db) : from;
      // A feed whose last follower left while this one waited is closed: open another.
      let feed = await feedOf(orgId);
      while (feeds.get(orgId) !== feed) feed = await feedOf(orgId);
      const follower: Follower = { reader, position: start, pending: [] };
      feed.followers.add(follower);
      let stopped = false;
      const stop = () => {
        if (stopped) return;
        stopped = true;
        feed.followers.delete(follower);
        if (feed.followers.size === 0) close(feed);
      };
      catchUp(orgId, follower, () => stopped).catch((err) => {
        if (stopped) return;
        stop();
        reader.fail(err);
      });
      return stop;
    },
    size: () => feeds.size,
    stop() {
      unsubscribe();
      for (const feed of feeds.values()) if (!(feed instanceof Promise)) close(feed);
    },
  };
}
