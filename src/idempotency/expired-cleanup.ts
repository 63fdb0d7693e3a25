import type { Db } from '../db/knex';
import type { Logger } from '../logger';
import * as idempotencyQueries from '../db/idempotency';
import { deleteInBatches, startPeriodicJob, type PeriodicJob } from '../server/periodic-job';

export interface SweepOptions {
  /** Rows per DELETE: small enough that one statement holds few locks briefly. */
  batchSize?: number;
  /** Batches per sweep, so one sweep stays cheap however much has piled up; the next one goes on. */
  maxBatches?: number;
}

/** Deletes expired idempotency records in batches; answers how many went. */
export async function sweepExpiredIdempotencyKeys(db: Db, { batchSize = 1000, maxBatches = 50 }: SweepOptions = {}): Promise<number> {
  let batches = 0;
  return deleteInBatches((size) => idempotencyQueries.deleteExpired(db, size), batchSize, () => batches++ >= maxBatches);
}

/**
 * Sweeps expired records every `intervalMs` (10 minutes by default) in the serving process. Lookups
 * already ignore expired rows, so the sweep only keeps the table small; a failed sweep (database
 * down) is logged and retried at the next interval.
 */
export function startIdempotencyCleanup(options: { db: Db; logger: Logger; intervalMs?: number } & SweepOptions): PeriodicJob {
  const { db, logger, intervalMs = 10 * 60_000, ...sweep } = options;
  return startPeriodicJob({
    intervalMs,
    runAtStart: false,
    run: () => sweepExpiredIdempotencyKeys(db, sweep)
      .then((deleted) => logger.debug({ deleted }, 'expired idempotency keys deleted'))
      .catch((err: unknown) => logger.warn({ err }, 'could not delete expired idempotency keys')),
  });
}
