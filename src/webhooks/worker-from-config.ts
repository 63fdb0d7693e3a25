import type { Config } from '../config';
import { webhookLeaseMs } from '../config';
import type { Db } from '../db/knex';
import type { Logger } from '../logger';
import { createDeliveryWorker, type DeliveryWorker } from './delivery-worker';
import { webhookUrlPolicyFor } from './url-safety';

/** The delivery worker as configured by the WEBHOOK_* variables (the worker process and the API's in-process one). */
export function createDeliveryWorkerFromConfig(config: Config, db: Db, logger: Logger, onTurn?: () => void): DeliveryWorker {
  return createDeliveryWorker({
    db,
    logger,
    policy: webhookUrlPolicyFor(config.NODE_ENV),
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    leaseMs: webhookLeaseMs(config),
    retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
    maxAttempts: config.WEBHOOK_MAX_ATTEMPTS,
    disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
    concurrency: config.WEBHOOK_WORKER_CONCURRENCY,
    pollMs: config.WEBHOOK_POLL_MS,
    orgIds: config.WEBHOOK_WORKER_ORG_IDS,
    onTurn,
  });
}
