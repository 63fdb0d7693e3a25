import type { Db } from '../db/knex';
import type { Logger } from '../logger';
import * as trash from '../db/trash';
import { deleteInBatches, startPeriodicJob, type PeriodicJob } from '../server/periodic-job';

const DAY_MS = 86_400_000;

/** TRASH_RETENTION_DAYS's default, for callers given no setting. */
export const DEFAULT_TRASH_RETENTION_DAYS = 30;

/**
 * Removes, for good, trash rows deleted more than `retentionDays` ago, in batches, each its own
 * short statement (no long lock), until none is left or `shouldStop` says so; answers how many.
 */
export async function purgeExpiredTrash(
  db: Db,
  retentionDays: number,
  { batchSize = 500, shouldStop = () => false }: { batchSize?: number; shouldStop?: () => boolean } = {},
): Promise<number> {
  const cutoff = new Date(Date.now() - retentionDays * DAY_MS);
  return deleteInBatches((size) => trash.purgeOlderThan(db, cutoff, size), batchSize, shouldStop);
}

/**
 * Purges at start and then every `intervalMs` (an hour), beside the events' retention, in the API
 * and the worker processes: concurrent purges only delete the same old rows. A failure is logged
 * and tried again at the next interval.
 */
export function startTrashPurge(options: { db: Db; logger: Logger; retentionDays: number; intervalMs?: number; batchSize?: number }): PeriodicJob {
  const { db, logger, retentionDays, intervalMs = 60 * 60_000, batchSize } = options;
  return startPeriodicJob({
    intervalMs,
    runAtStart: true,
    run: (shouldStop) => purgeExpiredTrash(db, retentionDays, { batchSize, shouldStop })
      .then((purged) => logger.debug({ purged, retentionDays }, 'expired trash purged'))
      .catch((err: unknown) => logger.warn({ err }, 'could not purge the expired trash')),
  });
}
