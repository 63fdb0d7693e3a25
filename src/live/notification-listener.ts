import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Db } from '../db/knex';
import type { Logger } from '../logger';
import { CHANGES_CHANNEL, type CacheChange } from '../db/cache-changes';

export { CHANGES_CHANNEL, type CacheChange };

/** What a cache reads: whether every change is known to reach this process, and the changes themselves. */
export interface CacheInvalidation {
  isLive(): boolean;
  /** Bumped by every change and every loss of the listener, so a load that raced one can tell. */
  version(): number;
  /** `reset`: notifications may have been missed (the listener came back); drop everything. */
  subscribe(onChange: (change: CacheChange | 'reset') => void): () => void;
}

export interface CacheInvalidationListener extends CacheInvalidation {
  start(): void;
  stop(): Promise<void>;
}

export interface ListenerOptions {
  /** The database URL: the listener holds its own connection, outside the pool, for as long as it runs. */
  url: string;
  /** The pool, used once per connection to prove that another session's NOTIFY reaches the listener. */
  db: Db;
  logger: Logger;
  /** A self-addressed NOTIFY this often proves the connection still delivers (a silently dead socket would not). */
  heartbeatMs?: number;
  probeTimeoutMs?: number;
  retryDelayMs?: { min: number; max: number };
  applicationName?: string;
  /**
   * Other channels this connection listens on, each with what to do with a payload (the live
   * streams' wake-ups): one LISTEN connection per process, its liveness proven by the probes here.
   */
  channels?: Readonly<Record<string, (payload: string | undefined) => void>>;
}

/**
 * One LISTEN connection per process. The cache may trust an entry for long only while `isLive()`:
 * from the moment a NOTIFY sent through the pool came back on this connection, until the
 * connection fails or a heartbeat goes unanswered.
 */
export function createCacheInvalidationListener(options: ListenerOptions): CacheInvalidationListener {
  const { url, db, logger, heartbeatMs = 2000, probeTimeoutMs = 2000, applicationName = 'workspace-api key invalidation' } = options;
  const retry = options.retryDelayMs ?? { min: 250, max: 10_000 };
  const instance = randomBytes(6).toString('hex');
  const subscribers = new Set<(change: CacheChange | 'reset') => void>();
  const probes = new Map<string, () => void>();
  let live = false;
  let version = 0;
  let running = false;
  let everLive = false;
  let warnedUnavailable = false;
  let failures = 0;
  let probeCount = 0;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;

  function emit(change: CacheChange | 'reset'): void {
    for (const onChange of subscribers) onChange(change);
  }

  function onNotification(message: pg.Notification): void {
    if (message.channel !== CHANGES_CHANNEL) return options.channels?.[message.channel]?.(message.payload);
    const parsed = parse(message.payload);
    if (parsed?.kind === 'probe') return probes.get(parsed.id)?.();
    version += 1;
    // A payload this code cannot read is still a change to something: drop everything.
    emit(parsed ?? 'reset');
  }

  function probe(send: (payload: string) => Promise<unknown>): Promise<void> {
    const id = `${instance}:${(probeCount += 1)}`;
    return new Promise<void>((resolve, reject) => {
      const timeout = setTimeout(() => {
        probes.delete(id);
        reject(new Error(`a NOTIFY on ${CHANGES_CHANNEL} did not come back within ${probeTimeoutMs} ms`));
      }, probeTimeoutMs);
      probes.set(id, () => {
        clearTimeout(timeout);
        probes.delete(id);
        resolve();
      });
      send(JSON.stringify({ kind: 'probe', id })).catch((err) => {
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
      await candidate.query(`listen ${CHANGES_CHANNEL}`);
      for (const channel of Object.keys(options.channels ?? {})) await candidate.query(`listen ${channel}`);
      await probe((payload) => db.raw('select pg_notify(?, ?)', [CHANGES_CHANNEL, payload]));
    } catch (err) {
      return lose(candidate, err);
    }
    if (client !== candidate || !running) return;
    live = true;
    everLive = true;
    failures = 0;
    version += 1;
    emit('reset');
    logger.info('API key cache invalidation: listening; verified keys are trusted until a change is notified');
    scheduleHeartbeat(candidate);
  }

  function scheduleHeartbeat(candidate: pg.Client): void {
    timer = setTimeout(() => {
      probe((payload) => candidate.query('select pg_notify($1, $2)', [CHANGES_CHANNEL, payload]))
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
      version += 1;
      logger.warn({ err }, 'API key cache invalidation lost; verified keys are trusted for KEY_CACHE_TTL_MS only until it is back');
    } else if (!everLive && !warnedUnavailable) {
      warnedUnavailable = true;
      logger.warn({ err }, 'API key cache invalidation unavailable; verified keys are trusted for KEY_CACHE_TTL_MS only');
    }
    if (!running) return;
    failures += 1;
    timer = setTimeout(() => void connect(), Math.min(retry.max, retry.min * 2 ** (failures - 1)));
    timer.unref();
  }

  return {
    isLive: () => live,
    version: () => version,
    subscribe(onChange) {
      subscribers.add(onChange);
      return () => subscribers.delete(onChange);
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
      if (live) version += 1;
      live = false;
      await current?.end().catch(() => {});
    },
  };
}

type Payload = CacheChange | { kind: 'probe'; id: string };

function parse(payload: string | undefined): Payload | undefined {
  try {
    const value = JSON.parse(payload ?? '') as Payload;
    if (value.kind === 'probe' && typeof value.id === 'string') return value;
    if (value.kind === 'key' && typeof value.orgId === 'string' && typeof value.keyId === 'string') return value;
    if (value.kind === 'member' && typeof value.orgId === 'string' && typeof value.memberId === 'string') return value;
    if (value.kind === 'org' && typeof value.orgId === 'string') return value;
    // kind 'all' (`workspace-api cache flush`) falls through: unreadable means drop everything.
  } catch {
    // fall through: unreadable
  }
  return undefined;
}
