import type http from 'node:http';
import type https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Db } from '../db/knex';
import type { Logger } from '../logger';
import * as deliveriesQueries from '../db/webhooks/deliveries';
import * as webhooksQueries from '../db/webhooks';
import type { ClaimedDelivery } from '../db/webhooks/deliveries';
import { recordEvents } from '../events/record-events';
import { retryDelayMs } from './backoff';
import { deliveryAccessProblem } from './delivery-access';
import { deliveryRequest } from './delivery-request';
import { postEvent, type PostOutcome } from './post-event';
import { webhookUrlProblem, type WebhookUrlPolicy } from './url-safety';
import { traceDelivery } from '../observability/tracing';

export interface DeliverySettings {
  timeoutMs: number;
  retryBaseMs: number;
  maxAttempts: number;
  disableAfterMs: number;
}

export interface DeliveryDeps extends DeliverySettings {
  db: Db;
  logger: Logger;
  policy: WebhookUrlPolicy;
  /** guardedLookup(policy); Node skips it for a literal IP address, which the URL check covers. */
  lookup: LookupFunction;
  agents?: { http: http.Agent; https: https.Agent };
}

/** What disabling an endpoint is recorded as being done by. */
const WORKER_ACTOR = { kind: 'system', id: 'webhook-worker' } as const;

/**
 * One attempt of a claimed delivery: refuse it if access was withdrawn (or its URL is not allowed
 * under this deployment's policy), else POST it, then record the attempt and settle the delivery
 * atomically. Never throws: a database failure is logged and the lease, once expired, lets a
 * worker try again. With tracing on, the attempt is a span of its own, linked to the call that
 * recorded the event; its request carries no trace header (the receiver is a third party).
 */
export function deliverClaimed(claim: ClaimedDelivery, deps: DeliveryDeps): Promise<void> {
  return traceDelivery(claim, async (span) => {
    const log = { deliveryId: claim.id, eventId: claim.event.id, endpointId: claim.endpointId, attempt: claim.attempt };
    try {
      const urlProblem = webhookUrlProblem(claim.url, deps.policy);
      const problem = deliveryAccessProblem(claim) ?? (urlProblem ? `the endpoint URL ${urlProblem}` : undefined);
      if (problem) {
        await refuse(deps.db, claim, problem);
        span?.setAttribute('workspace.webhook.result', 'refused');
        deps.logger.info({ ...log, reason: problem }, 'webhook delivery refused: not sent');
        return;
      }
      const { body, headers } = deliveryRequest(claim);
      const outcome = await postEvent({ url: claim.url, body, headers, timeoutMs: deps.timeoutMs, lookup: deps.lookup, agents: deps.agents });
      const result = await settle(claim, outcome, deps);
      span?.setAttributes({ 'workspace.webhook.result': result, ...(outcome.statusCode !== null && { 'http.response.status_code': outcome.statusCode }) });
      deps.logger.debug({ ...log, statusCode: outcome.statusCode, error: outcome.error, durationMs: outcome.durationMs, result }, 'webhook delivery attempted');
    } catch (err) {
      span?.setAttribute('workspace.webhook.result', 'not recorded');
      deps.logger.warn({ ...log, err }, 'could not record a webhook delivery attempt; it is retried once its lease expires');
    }
  });
}

/** No request: the attempt says why, and the delivery fails for good. */
async function refuse(db: Db, claim: ClaimedDelivery, problem: string): Promise<void> {
  await db.transaction(async (trx) => {
    await deliveriesQueries.recordAttempt(trx, claim, { startedAt: new Date(), durationMs: 0, statusCode: null, error: `not sent: ${problem}`, responseExcerpt: null });
    await deliveriesQueries.markFailed(trx, claim);
  });
}

type SettleResult = 'succeeded' | 'retry' | 'failed' | 'lease lost';

async function settle(claim: ClaimedDelivery, outcome: PostOutcome, deps: DeliveryDeps): Promise<SettleResult> {
  const acknowledged = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
  if (acknowledged) return (await deliveriesQueries.recordSuccess(deps.db, claim, outcome)) ? 'succeeded' : 'lease lost';
  return deps.db.transaction(async (trx): Promise<SettleResult> => {
    await deliveriesQueries.recordAttempt(trx, claim, outcome);
    // A redelivery's budget counts from when it was queued again (retryBase); its numbers go on.
    const sinceQueued = claim.attempt - claim.retryBase;
    const giveUp = sinceQueued >= deps.maxAttempts;
    const owned = giveUp
      ? await deliveriesQueries.markFailed(trx, claim)
      : await deliveriesQueries.scheduleRetry(trx, claim, retryDelayMs(sinceQueued, deps.retryBaseMs));
    // A late answer to a lease another worker has taken over is history only.
    if (!owned) return 'lease lost';
    const failing = await deliveriesQueries.markEndpointFailing(trx, claim.orgId, claim.endpointId, deps.disableAfterMs);
    if (failing?.overdue) await disableEndpoint(trx, claim, failing.failingSince, deps.logger);
    return giveUp ? 'failed' : 'retry';
  });
}

/** Failing for longer than WEBHOOK_DISABLE_AFTER_MS: disabled, and a webhook.disabled event says so, atomically. */
async function disableEndpoint(trx: Db, claim: ClaimedDelivery, failingSince: Date, logger: Logger): Promise<void> {
  const reason = `Disabled automatically: every delivery attempt has failed since ${failingSince.toISOString()}`;
  if (!(await deliveriesQueries.disableEndpoint(trx, claim.orgId, claim.endpointId, reason))) return;
  const endpoint = (await webhooksQueries.getById(trx, claim.orgId, claim.endpointId))!;
  await recordEvents(trx, { orgId: claim.orgId, actor: WORKER_ACTOR }, [{ type: 'webhook.disabled', object: endpoint }]);
  logger.warn({ orgId: claim.orgId, endpointId: claim.endpointId, failingSince }, 'webhook endpoint disabled: failing for too long');
}
