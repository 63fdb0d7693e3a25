import type { Db } from '../db/knex';
import type { Logger } from '../logger';
import * as eventsQueries from '../db/events';
import { purgeStaleHours } from '../db/webhooks/endpoint-stats';
import { deleteInBatches, startPeriodicJob, type PeriodicJob } from '../server/periodic-job';

const DAY_MS = 86_400_000;

/**
 * Deletes events older than `retentionDays` (their webhook deliveries and attempts cascade) in
 * batches, each its own short statement, until none is left or `shouldStop` says so; answers how many.
 */
export async function purgeExpiredEvents(
  db: Db,
  retentionDays: number,
  { batchSize = 1000, shouldStop = () => false }: { batchSize?: number; shouldStop?: () => boolean } = {},
): Promise<number> {
  const cutoff = new Date(Date.now() - retentionDays * DAY_MS);
  return deleteInBatches((size) => eventsQueries.purgeOlderThan(db, cutoff, size), batchSize, shouldStop);
}

/**
 * Purges at start and then every `intervalMs` (an hour): the expired events, then the endpoints'
 * hourly delivery figures that no read needs any more (src/db/webhooks/endpoint-stats.ts). Both
 * the API and the worker processes run it: concurrent purges only delete the same old rows, and
 * whichever runs keeps the tables bounded.
 * A failed purge (database down) is logged and tried again at the next interval.
 */
export function startEventsRetention(options: { db: Db; logger: Logger; retentionDays: number; intervalMs?: number; batchSize?: number }): PeriodicJob {
  const { db, logger, retentionDays, intervalMs = 60 * 60_000, batchSize } = options;
  return startPeriodicJob({
    intervalMs,
    runAtStart: true,
    run: (shouldStop) => purgeExpiredEvents(db, retentionDays, { batchSize, shouldStop })
      .then(async (deleted) => ({ deleted, staleHours: await purgeStaleHours(db) }))
      .then((purged) => logger.debug({ ...purged, retentionDays }, 'expired events purged'))
      .catch((err: unknown) => logger.warn({ err }, 'could not purge expired events')),
  });
}
