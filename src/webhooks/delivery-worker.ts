import http from 'node:http';
import https from 'node:https';
import type { Db } from '../db/knex';
import type { Logger } from '../logger';
import * as deliveriesQueries from '../db/webhooks/deliveries';
import { deliverClaimed, type DeliveryDeps, type DeliverySettings } from './deliver';
import { guardedLookup, type WebhookUrlPolicy } from './url-safety';

export interface DeliveryWorkerOptions extends DeliverySettings {
  db: Db;
  logger: Logger;
  policy: WebhookUrlPolicy;
  /** How long a claim lasts; longer than timeoutMs (webhookLeaseMs in config.ts). */
  leaseMs: number;
  /** Deliveries in flight at once. */
  concurrency: number;
  /** How long an idle worker waits before looking again. */
  pollMs: number;
  /** Only these workspaces' deliveries (WEBHOOK_WORKER_ORG_IDS); every workspace when absent. */
  orgIds?: readonly string[];
  /** How long stop() waits for deliveries in flight; by default one request timeout and 2 s to record it. */
  stopTimeoutMs?: number;
  /** Called at each turn of the claiming loop, whatever the claim's outcome: the worker's heartbeat (worker-health.ts). */
  onTurn?: () => void;
}

export interface DeliveryWorker {
  start(): void;
  /** Claims nothing more, waits (bounded) for deliveries in flight, then frees its connections. */
  stop(): Promise<void>;
}

/**
 * Delivers webhooks: claims due deliveries with a lease, up to `concurrency` at a time, and looks
 * again at once while batches come back full, or after `pollMs` when there was less to do. A
 * delivery that finishes wakes the loop early: it may have freed the next event of its object.
 */
export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { db, logger, concurrency, pollMs, leaseMs, orgIds } = options;
  const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  const deps: DeliveryDeps = { ...options, lookup: guardedLookup(options.policy), agents };
  const inFlight = new Set<Promise<void>>();
  let running = false;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;

  /** Resolves after `ms`, or sooner when a delivery finishes or stop() is called. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  const track = (delivery: Promise<void>) => {
    inFlight.add(delivery);
    void delivery.finally(() => {
      inFlight.delete(delivery);
      wake?.();
    });
  };

  async function run(): Promise<void> {
    while (running) {
      options.onTurn?.();
      const free = concurrency - inFlight.size;
      // Refill by batches of at least half the slots: one claim per finished delivery would make
      // the claim's round trip and commit the ceiling on the delivery rate.
      if (free < Math.ceil(concurrency / 2)) {
        await pause(pollMs);
        continue;
      }
      let claims: deliveriesQueries.ClaimedDelivery[];
      try {
        claims = await deliveriesQueries.claimDue(db, { limit: free, leaseMs, orgIds });
      } catch (err) {
        logger.warn({ err }, 'could not claim webhook deliveries');
        await pause(Math.max(pollMs, 1000));
        continue;
      }
      for (const claim of claims) track(deliverClaimed(claim, deps));
      if (claims.length < free) await pause(pollMs);
    }
  }

  async function drain(): Promise<void> {
    running = false;
    wake?.();
    await loop;
    const bound = options.stopTimeoutMs ?? options.timeoutMs + 2000;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, bound)));
    await Promise.race([Promise.allSettled([...inFlight]), timedOut]);
    clearTimeout(timer);
    if (inFlight.size > 0) logger.warn({ deliveries: inFlight.size }, 'stopped with webhook deliveries unsettled; their leases will expire and they will be retried');
    agents.http.destroy();
    agents.https.destroy();
  }

  let stopping: Promise<void> | undefined;
  return {
    start() {
      if (running || stopping) return;
      running = true;
      loop = run();
    },
    // Every caller waits for the same drain (the API starts it at the signal and awaits it again before closing the pool).
    stop() {
      stopping ??= drain();
      return stopping;
    },
  };
}
