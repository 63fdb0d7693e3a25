import { once } from 'node:events';
import express from 'express';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { createHttpServer } from '../server/http-server';

/** The worker's loops that claim work; each beats once per turn (onTurn), whether its claim succeeded or failed. */
export type WorkerLoop = 'deliveries' | 'imports';

export interface Heartbeats {
  /** The callback a loop calls on each turn. */
  beat(loop: WorkerLoop): () => void;
  /** The loops whose last beat is older than the threshold, by name. */
  stalled(): WorkerLoop[];
}

/** Every loop counts as having beaten at creation, so a slow first claim is not a stall. */
export function createHeartbeats(loops: readonly WorkerLoop[], stallAfterMs: number, now: () => number = Date.now): Heartbeats {
  const last = new Map<WorkerLoop, number>(loops.map((loop) => [loop, now()]));
  return {
    beat: (loop) => () => last.set(loop, now()),
    stalled: () => [...last].filter(([, at]) => now() - at > stallAfterMs).map(([loop]) => loop),
  };
}

/**
 * How long a loop may go without a turn before the worker answers 503: three times the longest a
 * healthy turn takes. A turn is a pause (the poll interval; a failed claim pauses at least 1 s)
 * and a claim, which waits at most DB_ACQUIRE_TIMEOUT_MS for a connection and then
 * DB_STATEMENT_TIMEOUT_MS (plus pg's 1 s on a silent socket) for its answer. So a database that
 * is down or hung fails the claims but keeps the loops turning (restarting would not help); a
 * loop stuck in anything else stops beating. Defaults: 3 x (1 + 3 + 2 + 1) s = 21 s.
 * With DB_STATEMENT_TIMEOUT_MS=0 a statement has no bound, and one that hangs is a stall.
 */
export function workerStallAfterMs(config: Pick<Config, 'WEBHOOK_POLL_MS' | 'IMPORT_POLL_MS' | 'DB_ACQUIRE_TIMEOUT_MS' | 'DB_STATEMENT_TIMEOUT_MS'>): number {
  const pause = Math.max(config.WEBHOOK_POLL_MS, config.IMPORT_POLL_MS, 1000);
  const claim = config.DB_ACQUIRE_TIMEOUT_MS + (config.DB_STATEMENT_TIMEOUT_MS > 0 ? config.DB_STATEMENT_TIMEOUT_MS : 0) + 1000;
  return 3 * (pause + claim);
}

export interface WorkerHealthServer {
  port: number;
  close(): Promise<void>;
}

/**
 * `GET /healthz` of the worker process: 200 `{"status":"ok"}` while every loop beats, else 503
 * `{"status":"stalled","reason":"loop not turning","loops":[...]}` (a liveness signal: a
 * restart is the cure). No auth, no versions, nothing about the work itself. The API's server
 * (createHttpServer), so the same timeouts and JSON refusals hold for slow or malformed clients.
 */
export async function startWorkerHealthServer(options: { port: number; host: string; heartbeats: Heartbeats; logger: Logger }): Promise<WorkerHealthServer> {
  const { heartbeats, logger } = options;
  const app = express();
  app.disable('x-powered-by');
  let wasStalled = false;
  app.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store');
    const loops = heartbeats.stalled();
    // Logged once per change, not per probe.
    if ((loops.length > 0) !== wasStalled) {
      wasStalled = loops.length > 0;
      if (wasStalled) logger.warn({ loops }, 'worker health: a loop has stopped turning');
      else logger.info('worker health: every loop turns again');
    }
    if (loops.length > 0) res.status(503).json({ status: 'stalled', reason: 'loop not turning', loops });
    else res.json({ status: 'ok' });
  });
  app.use((_req, res) => {
    res.status(404).json({ error: { code: 'NOT_FOUND', message: 'Only GET /healthz is served here' } });
  });
  const server = createHttpServer(app).listen(options.port, options.host);
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([err]) => Promise.reject(err as Error))]);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    port,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
