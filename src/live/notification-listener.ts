import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Db } from '../db/knex';

/** The channel of the listener's own probes: a NOTIFY sent through the pool that must come back here. */
export const PROBES_CHANNEL = 'listener_probes';

/**
 * `live`: from now on every NOTIFY reaches this process; sent on the first connection and after
 * each reconnection, when notifications may have been missed meanwhile. `lost`: the live
 * connection failed or a probe went unanswered. `unavailable`: the first attempts failed (told once).
 */
export type ListenerState = 'live' | 'lost' | 'unavailable';

export interface NotificationListener {
  /** Whether every NOTIFY is known to reach this process now. */
  isLive(): boolean;
  /** Calls `onPayload` with each NOTIFY on `channel` (a constant, lower-case identifier). Answers how to stop. */
  subscribe(channel: string, onPayload: (payload: string | undefined) => void): () => void;
  /** Calls `onState` at each change of liveness, synchronously with `isLive()`'s. Answers how to stop. */
  watch(onState: (state: ListenerState, err?: unknown) => void): () => void;
  start(): void;
  stop(): Promise<void>;
}

export interface ListenerOptions {
  /** The database URL: the listener holds its own connection, outside the pool, for as long as it runs. */
  url: string;
  /** The pool, used once per connection to prove that another session's NOTIFY reaches the listener. */
  db: Db;
  /** A self-addressed NOTIFY this often proves the connection still delivers (a silently dead socket would not). */
  heartbeatMs?: number;
  probeTimeoutMs?: number;
  retryDelayMs?: { min: number; max: number };
  applicationName?: string;
}

const CHANNEL_NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * One LISTEN connection per process, shared by every module that needs another session's NOTIFY
 * (the key caches' invalidation, the live updates' wake-ups). It is live from the moment a
 * NOTIFY sent through the pool came back on it, until the connection fails or a heartbeat goes
 * unanswered; then it reconnects by itself, with backoff.
 */
export function createNotificationListener(options: ListenerOptions): NotificationListener {
  const { url, db, heartbeatMs = 2000, probeTimeoutMs = 2000, applicationName = 'workspace-api listener' } = options;
  const retry = options.retryDelayMs ?? { min: 250, max: 10_000 };
  const instance = randomBytes(6).toString('hex');
  const channels = new Map<string, Set<(payload: string | undefined) => void>>();
  const watchers = new Set<(state: ListenerState, err?: unknown) => void>();
  const probes = new Map<string, () => void>();
  let live = false;
  let running = false;
  let everLive = false;
  let toldUnavailable = false;
  let failures = 0;
  let probeCount = 0;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;

  function tell(state: ListenerState, err?: unknown): void {
    for (const onState of watchers) onState(state, err);
  }

  function onNotification(message: pg.Notification): void {
    if (message.channel === PROBES_CHANNEL) return probes.get(message.payload ?? '')?.();
    for (const onPayload of channels.get(message.channel) ?? []) onPayload(message.payload);
  }

  function listenOn(candidate: pg.Client, channel: string, listen: boolean): void {
    candidate.query(`${listen ? 'listen' : 'unlisten'} ${channel}`).catch((err) => lose(candidate, err));
  }

  function probe(send: (payload: string) => Promise<unknown>): Promise<void> {
    const id = `${instance}:${(probeCount += 1)}`;
    return new Promise<void>((resolve, reject) => {
      const timeout = setTimeout(() => {
        probes.delete(id);
        reject(new Error(`a NOTIFY on ${PROBES_CHANNEL} did not come back within ${probeTimeoutMs} ms`));
      }, probeTimeoutMs);
      probes.set(id, () => {
        clearTimeout(timeout);
        probes.delete(id);
        resolve();
      });
      send(id).catch((err) => {
        clearTimeout(timeout);
        probes.delete(id);
        reject(err);
      });
    });
  }

  async function connect(): Promise<void> {
    const candidate = new pg.Client({ connectionString: url, application_name: applicationName, keepAlive: true });
    client = candidate;
    candidate.on('notification', onNotification);
    candidate.on('error', (err) => lose(candidate, err));
    candidate.on('end', () => lose(candidate, new Error('the LISTEN connection closed')));
    try {
      await candidate.connect();
      await candidate.query(`listen ${PROBES_CHANNEL}`);
      for (const channel of channels.keys()) await candidate.query(`listen ${channel}`);
      await probe((payload) => db.raw('select pg_notify(?, ?)', [PROBES_CHANNEL, payload]));
    } catch (err) {
      return lose(candidate, err);
    }
    if (client !== candidate || !running) return;
    live = true;
    everLive = true;
    failures = 0;
    tell('live');
    scheduleHeartbeat(candidate);
  }

  function scheduleHeartbeat(candidate: pg.Client): void {
    timer = setTimeout(() => {
      probe((payload) => candidate.query('select pg_notify($1, $2)', [PROBES_CHANNEL, payload]))
        .then(() => client === candidate && running && scheduleHeartbeat(candidate))
        .catch((err) => lose(candidate, err));
    }, heartbeatMs);
    timer.unref();
  }

  function lose(candidate: pg.Client, err: unknown): void {
    if (client !== candidate) return;
    client = undefined;
    clearTimeout(timer);
    candidate.end().catch(() => {});
    if (live) {
      live = false;
      tell('lost', err);
    } else if (!everLive && !toldUnavailable) {
      toldUnavailable = true;
      tell('unavailable', err);
    }
    if (!running) return;
    failures += 1;
    timer = setTimeout(() => void connect(), Math.min(retry.max, retry.min * 2 ** (failures - 1)));
    timer.unref();
  }

  return {
    isLive: () => live,
    subscribe(channel, onPayload) {
      if (!CHANNEL_NAME.test(channel) || channel === PROBES_CHANNEL) throw new Error(`cannot listen on channel "${channel}"`);
      let subscribers = channels.get(channel);
      if (!subscribers) {
        channels.set(channel, (subscribers = new Set()));
        // Also on a connection still being opened (pg queues the statement): listening twice is harmless.
        if (client) listenOn(client, channel, true);
      }
      subscribers.add(onPayload);
      return () => {
        if (!subscribers.delete(onPayload) || subscribers.size > 0) return;
        channels.delete(channel);
        if (client) listenOn(client, channel, false);
      };
    },
    watch(onState) {
      watchers.add(onState);
      return () => watchers.delete(onState);
    },
    start() {
      if (running) return;
      running = true;
      void connect();
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      const current = client;
      client = undefined;
      live = false;
      await current?.end().catch(() => {});
    },
  };
}
