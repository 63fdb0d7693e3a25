import type { Config } from '../config';
import type { Db } from '../db/knex';
import type { Logger } from '../logger';
import { startPeriodicJob, type PeriodicJob } from '../server/periodic-job';
import * as importsQueries from '../db/imports';
import { createImportRunner, type ImportRunner } from './import-runner';

/** The import runner as configured by the IMPORT_* variables (the worker process and the API's in-process one). */
export function createImportRunnerFromConfig(config: Config, db: Db, logger: Logger, onCommitted?: (orgId: string) => void, onTurn?: () => void): ImportRunner {
  return createImportRunner({
    db,
    logger,
    concurrency: config.IMPORT_WORKER_CONCURRENCY,
    maxRunningPerWorkspace: config.IMPORT_MAX_RUNNING_PER_WORKSPACE,
    leaseMs: config.IMPORT_LEASE_MS,
    pollMs: config.IMPORT_POLL_MS,
    batchRows: config.IMPORT_BATCH_ROWS,
    orgIds: config.IMPORT_WORKER_ORG_IDS,
    onCommitted,
    onTurn,
  });
}

const DAY_MS = 86_400_000;

/**
 * Deletes imports that ended more than `retentionDays` ago, with their failed rows (personal data)
 * and any chunks left, at start and then hourly, in batches. Run beside the runner.
 */
export function startImportsRetention(options: { db: Db; logger: Logger; retentionDays: number; intervalMs?: number; batchSize?: number }): PeriodicJob {
  const { db, logger, retentionDays, intervalMs = 60 * 60_000, batchSize = 100 } = options;
  return startPeriodicJob({
    intervalMs,
    runAtStart: true,
    run: async (shouldStop) => {
      try {
        const cutoff = new Date(Date.now() - retentionDays * DAY_MS);
        let deleted = 0;
        for (let count = batchSize; count === batchSize && !shouldStop();) {
          count = await importsQueries.purgeEndedBefore(db, cutoff, batchSize);
          deleted += count;
        }
        logger.debug({ deleted, retentionDays }, 'expired imports purged');
      } catch (err) {
        logger.warn({ err }, 'could not purge expired imports');
      }
    },
  });
}
