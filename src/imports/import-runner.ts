import type { Db } from '../db/knex';
import type { Logger } from '../logger';
import * as importsQueries from '../db/imports';
import { endImport, runImport } from './run-import';

export interface ImportRunnerOptions {
  db: Db;
  logger: Logger;
  /** Imports this process runs at once (IMPORT_WORKER_CONCURRENCY). */
  concurrency: number;
  /** Imports one workspace runs at once, across every worker (IMPORT_MAX_RUNNING_PER_WORKSPACE). */
  maxRunningPerWorkspace: number;
  leaseMs: number;
  pollMs: number;
  batchRows: number;
  /** A job whose attempts keep failing (not its rows: the job itself) fails after this many. */
  maxAttempts?: number;
  /** Only these workspaces' imports (IMPORT_WORKER_ORG_IDS; tests sharing one database); every workspace when absent. */
  orgIds?: readonly string[];
  /** Told after each committed batch: wakes the workspace's live readers (events, imports.onProgress). */
  onCommitted?(orgId: string): void;
  /** Called at each turn of the claiming loop and before each claim, whatever the outcome: the worker's heartbeat (src/webhooks/worker-health.ts). */
  onTurn?: () => void;
}

export interface ImportRunner {
  start(): void;
  /** Looks for work now (an upload was just queued in this process). */
  wake(): void;
  /** Claims nothing more; each running job stops after its batch and gives up its lease. */
  stop(): Promise<void>;
}

const DEFAULT_MAX_ATTEMPTS = 5;

/**
 * Runs import jobs (src/imports/run-import.ts): claims them with a lease, up to `concurrency` at a
 * time, each workspace at most `maxRunningPerWorkspace`. Runs in the worker process, and in the
 * API process where webhook deliveries do (the embedded database). A job that throws is given up
 * and claimed again after a pause, at its cursor; after `maxAttempts` it fails.
 */
export function createImportRunner(options: ImportRunnerOptions): ImportRunner {
  const { db, logger, concurrency, pollMs } = options;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const inFlight = new Set<Promise<void>>();
  let running = false;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  const shouldStop = () => !running;

  const pause = (ms: number) => new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      wake = undefined;
      resolve();
    }
    wake = done;
  });

  async function run(claim: importsQueries.ClaimedImport): Promise<void> {
    const log = { orgId: claim.row.org_id, importId: claim.row.id, attempt: claim.row.attempts };
    try {
      const outcome = await runImport({ db, leaseMs: options.leaseMs, batchRows: options.batchRows, onCommitted: options.onCommitted, shouldStop }, claim);
      if (outcome === 'stopped') await importsQueries.release(db, claim, 0);
      logger.info({ ...log, outcome }, 'import run ended');
    } catch (err) {
      // The error of the job itself (never a row's data: rows fail alone, inside the batch).
      logger.warn({ ...log, err }, 'import attempt failed');
      try {
        if (claim.row.attempts >= maxAttempts) await endImport({ db, onCommitted: options.onCommitted }, claim, { status: 'failed', failure: 'The import failed repeatedly on the server side; the rows committed before stay' });
        else await importsQueries.release(db, claim, Math.min(60_000, 1000 * 2 ** claim.row.attempts));
      } catch (releaseErr) {
        logger.warn({ ...log, err: releaseErr }, 'could not give up an import; its lease will run out');
      }
    }
  }

  async function loopRun(): Promise<void> {
    while (running) {
      options.onTurn?.();
      const free = concurrency - inFlight.size;
      let claimed = 0;
      if (free > 0) {
        try {
          for (const orgId of await importsQueries.workspacesWithImportsToRun(db, free, options.orgIds)) {
            if (claimed >= free || !running) break;
            options.onTurn?.();
            const claim = await importsQueries.claimIn(db, orgId, { maxRunning: options.maxRunningPerWorkspace, leaseMs: options.leaseMs });
            if (!claim) continue;
            claimed++;
            const job = run(claim).finally(() => {
              inFlight.delete(job);
              wake?.();
            });
            inFlight.add(job);
          }
        } catch (err) {
          logger.warn({ err }, 'could not claim imports');
        }
      }
      if (running && claimed === 0) await pause(pollMs);
    }
  }

  let stopping: Promise<void> | undefined;
  return {
    start() {
      if (running || stopping) return;
      running = true;
      loop = loopRun();
    },
    wake: () => wake?.(),
    stop() {
      stopping ??= (async () => {
        running = false;
        wake?.();
        await loop;
        await Promise.allSettled([...inFlight]);
      })();
      return stopping;
    },
  };
}
