import type { Db } from '../db/knex';
import type { Logger } from '../logger';
import * as apiKeyRequestsQueries from '../db/api-key-requests';
import { deleteInBatches, startPeriodicJob, type PeriodicJob } from '../server/periodic-job';

const DAY_MS = 86_400_000;

/** Deletes request-log rows older than `retentionDays` (0: every row) in batches; answers how many. */
export function purgeExpiredKeyRequests(
  db: Db,
  retentionDays: number,
  { batchSize = 5000, shouldStop = () => false }: { batchSize?: number; shouldStop?: () => boolean } = {},
): Promise<number> {
  const cutoff = new Date(Date.now() - retentionDays * DAY_MS);
  return deleteInBatches((size) => apiKeyRequestsQueries.purgeOlderThan(db, cutoff, size), batchSize, shouldStop);
}

/** Purges at start and then hourly, as the events' retention does (src/events/retention.ts), in the API process. */
export function startKeyRequestsRetention(options: { db: Db; logger: Logger; retentionDays: number; intervalMs?: number }): PeriodicJob {
  const { db, logger, retentionDays, intervalMs = 60 * 60_000 } = options;
  return startPeriodicJob({
    intervalMs,
    runAtStart: true,
    run: (shouldStop) => purgeExpiredKeyRequests(db, retentionDays, { shouldStop })
      .then((deleted) => logger.debug({ deleted, retentionDays }, 'expired request log rows purged'))
      .catch((err: unknown) => logger.warn({ err }, 'could not purge the request log')),
  });
}
