import { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import { AppError } from '../../errors/app-error';
import * as webhooksQueries from '../../db/webhooks';
import { EVENT_TYPES } from '../../events/event-types';
import { signedHeaders } from '../../webhooks/delivery-request';
import { postEvent } from '../../webhooks/post-event';
import { guardedLookup, webhookHostProblem, webhookUrlProblem } from '../../webhooks/url-safety';
import { enumOf, idOf, objectOf } from '../shared/fields';
import { notInWorkspace } from '../shared/references';
import { integerOutput } from '../shared/output-fields';
import { PING, testEventBody } from './sample-event';

/** WEBHOOK_TIMEOUT_MS's default, when the context does not carry the deployment's. */
const DEFAULT_TIMEOUT_MS = 5000;

export const webhooksSendTestEventInput = objectOf({
  id: idOf('wh'),
  type: enumOf(EVENT_TYPES, 'a known event type').optional().meta({ description: `The type of the sample to send; "${PING}" (no type) when absent.` }),
});

export const webhooksSendTestEventOutput = z
  .strictObject({
    succeeded: z.boolean().meta({ description: 'Whether the receiver answered 2xx within the timeout.', examples: [true] }),
    statusCode: integerOutput(200).nullable().meta({ description: "The receiver's HTTP status; null when no answer came." }),
    durationMs: integerOutput(87).min(0),
    responseExcerpt: z.string().nullable().meta({ description: "The start of the receiver's answer (1 KiB at most), if any.", examples: ['ok'] }),
    error: z.string().nullable().meta({ description: 'What broke the exchange (a timeout, a refused connection); null when the receiver answered.', examples: [null] }),
  })
  .meta({ description: 'What the receiver answered to the test event.' });

export const webhooksSendTestEvent = defineProcedure({
  name: 'webhooks.sendTestEvent',
  method: 'POST',
  scope: 'webhooks.update',
  exposed: true,
  cost: 10,
  description:
    'Sends a signed test event to an endpoint now (ping, or a sample of the given type with fake data and test: true), through the same URL checks as every delivery, and answers what the receiver answered. Not recorded as a delivery; counts as 10 calls against the rate limit.',
  input: webhooksSendTestEventInput,
  output: webhooksSendTestEventOutput,
  async handler({ ctx, input }) {
    const target = await webhooksQueries.signingTargetOf(ctx.db, ctx.orgId, input.id);
    if (!target) throw notInWorkspace('webhookEndpoints', input.id);
    // The worker's checks, before anything is sent: the URL's form, then (production) where its host resolves.
    const problem = webhookUrlProblem(target.url, ctx.webhookUrlPolicy) ?? (await webhookHostProblem(target.url, ctx.webhookUrlPolicy));
    if (problem) throw new AppError('UNPROCESSABLE_CONTENT', `The endpoint's URL is refused by the URL-safety rules (${problem}): nothing was sent`);
    const now = new Date();
    const event = testEventBody(ctx.orgId, input.type ?? PING, now);
    const headers = { ...signedHeaders(event.body, event, target.secrets, now), 'Workspace-Test': 'true' };
    const outcome = await postEvent({
      url: target.url, body: event.body, headers, timeoutMs: ctx.webhookTimeoutMs ?? DEFAULT_TIMEOUT_MS, lookup: guardedLookup(ctx.webhookUrlPolicy),
    });
    const { statusCode, durationMs, responseExcerpt, error } = outcome;
    return { succeeded: statusCode !== null && statusCode >= 200 && statusCode < 300, statusCode, durationMs, responseExcerpt, error };
  },
});
