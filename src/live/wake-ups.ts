import { randomBytes } from 'node:crypto';
import type { Db } from '../db/knex';
import type { Logger } from '../logger';

/** The PostgreSQL channel of the wake-ups (sent through the pool, heard on the process's LISTEN connection). */
export const WAKE_UPS_CHANNEL = 'workspace_changes';

/** Who is woken: readers of one workspace, or of every one (`undefined`: a wake-up may have been missed). */
export type WakeUpListener = (orgId: string | undefined) => void;

/**
 * Tells live readers that a workspace changed. A wake-up carries no data: a reader woken reads
 * the events table, the source of truth, so a wake-up lost delays what it would have shown and
 * never drops it (the readers also look again on their own now and then).
 */
export interface WakeUps {
  /** A write in `orgId` committed: wakes this process's readers at once, and every other instance's soon after. */
  announce(orgId: string): void;
  subscribe(listener: WakeUpListener): () => void;
  /** A payload another instance sent (the transport calls it). */
  receive(payload: string | undefined): void;
  /** The transport may have missed payloads (it reconnected): wake every reader. */
  wakeAll(): void;
  stop(): Promise<void>;
}

/** How the wake-ups reach other instances: PostgreSQL NOTIFY, Redis PUBLISH, or nowhere (one process). */
export interface WakeUpTransport {
  send(payload: string): Promise<void>;
  close?(): Promise<void>;
}

/** Wake-ups announced within this long leave in one message: a busy instance sends about 100 a second, not one per write. */
const BATCH_MS = 10;
/** NOTIFY payloads must stay under 8000 bytes; ids are about 30 characters. */
const ORGS_PER_MESSAGE = 200;

export function createWakeUps(transport: WakeUpTransport | undefined, logger: Logger): WakeUps {
  const instance = randomBytes(6).toString('hex');
  const listeners = new Set<WakeUpListener>();
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let warned = false;

  function wake(orgId: string | undefined): void {
    for (const listener of listeners) listener(orgId);
  }

  function flush(): void {
    timer = undefined;
    const orgs = [...pending];
    pending = new Set();
    for (let i = 0; i < orgs.length; i += ORGS_PER_MESSAGE) {
      const payload = JSON.stringify({ from: instance, orgs: orgs.slice(i, i + ORGS_PER_MESSAGE) });
      transport!.send(payload).then(
        () => (warned = false),
        (err) => {
          // Other instances see these changes at their next look (LIVE_POLL_MS), not lost.
          if (!warned) logger.warn({ err }, 'live updates: could not tell other instances of a change');
          warned = true;
        },
      );
    }
  }

  return {
    announce(orgId) {
      wake(orgId);
      if (!transport) return;
      pending.add(orgId);
      timer ??= setTimeout(flush, BATCH_MS);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    receive(payload) {
      let message: { from?: unknown; orgs?: unknown };
      try {
        message = JSON.parse(payload ?? '') as typeof message;
      } catch {
        return wake(undefined);
      }
      if (message.from === instance) return; // woken when announced
      if (!Array.isArray(message.orgs)) return wake(undefined);
      for (const orgId of message.orgs) if (typeof orgId === 'string') wake(orgId);
    },
    wakeAll: () => wake(undefined),
    async stop() {
      if (timer) {
        clearTimeout(timer);
        flush();
      }
      await transport?.close?.();
    },
  };
}

/** NOTIFY through the pool: on Citus a statement of its own, touching no table, runs on the coordinator, where every instance listens. */
export function notifyTransport(db: Db): WakeUpTransport {
  return { send: async (payload) => void (await db.raw('select pg_notify(?, ?)', [WAKE_UPS_CHANNEL, payload])) };
}
