import type { Db } from './knex';
import type { Logger } from '../logger';
import { foldCounterShards } from './lead-totals';
import { startPeriodicJob, type PeriodicJob } from '../server/periodic-job';

/** Bounds one folding, so busy writes (which keep adding shards) cannot keep it going. */
const MAX_BATCHES = 100;

/** Folds the lead counters' shards (`foldCounterShards`) in batches until one deletes nothing; answers how many rows went. */
export async function foldAllCounterShards(db: Db, shouldStop: () => boolean = () => false): Promise<number> {
  let deleted = 0;
  for (let batch = 0; batch < MAX_BATCHES && !shouldStop(); batch++) {
    const count = await foldCounterShards(db);
    deleted += count;
    if (count === 0) break;
  }
  return deleted;
}

/**
 * Folds the lead counters' shards at start and then every `intervalMs` (a minute), so the list's
 * totals sum about a row per group. Every instance may run it: concurrent folds skip each other's
 * rows. A failure is logged and tried again at the next interval.
 */
export function startCounterFolding(options: { db: Db; logger: Logger; intervalMs?: number }): PeriodicJob {
  const { db, logger, intervalMs = 60_000 } = options;
  return startPeriodicJob({
    intervalMs,
    runAtStart: true,
    run: (shouldStop) => foldAllCounterShards(db, shouldStop)
      .then((deleted) => logger.debug({ deleted }, 'lead counter shards folded'))
      .catch((err: unknown) => logger.warn({ err }, 'could not fold lead counter shards')),
  });
}
