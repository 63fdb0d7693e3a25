import { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import { AppError } from '../../errors/app-error';
import * as redeliveryQueries from '../../db/webhooks/redelivery';
import type { EndpointAccess } from '../../db/webhooks/redelivery';
import { ALL_EVENTS, EVENT_TYPES } from '../../events/event-types';
import { deliveryAccessProblem } from '../../webhooks/delivery-access';
import { dateTimeField } from '../shared/format-fields';
import { idOf, listOf, objectOf } from '../shared/fields';
import { notInWorkspace } from '../shared/references';
import { integerOutput } from '../shared/output-fields';

export const MAX_REDELIVER_EVENT_IDS = 100;

export const webhooksRedeliverInput = objectOf({
  id: idOf('wh'),
  eventIds: listOf(idOf('evt'), { of: 'event ids', min: 1, max: MAX_REDELIVER_EVENT_IDS }).optional(),
  since: dateTimeField.optional(),
}).superRefine((input, ctx) => {
  if ((input.eventIds === undefined) === (input.since === undefined)) {
    ctx.addIssue({ code: 'custom', message: 'expected exactly one of eventIds and since', input });
  }
});

export const webhooksRedeliverOutput = z
  .strictObject({ queued: integerOutput(42).min(0).meta({ description: 'How many deliveries were queued.' }) })
  .meta({ description: 'How many of the events were queued for delivery again.' });

/** Why the endpoint must not be sent this type, or undefined: subscribed to it and allowed to read it, as every attempt checks. */
function typeProblem(access: EndpointAccess, type: string): string | undefined {
  if (!access.events.includes(ALL_EVENTS) && !access.events.includes(type)) return `the endpoint is not subscribed to ${type}`;
  return deliveryAccessProblem({ ...access, event: { type } });
}

export const webhooksRedeliver = defineProcedure({
  name: 'webhooks.redeliver',
  method: 'POST',
  scope: 'webhooks.update',
  exposed: true,
  cost: 10,
  description:
    'Queues events for delivery to an endpoint again (the given eventIds, all or none, or every event since a time that it is subscribed to and may read): same event ids, freshly signed, recorded as new attempts. Counts as 10 calls against the rate limit.',
  input: webhooksRedeliverInput,
  output: webhooksRedeliverOutput,
  async handler({ ctx, input }) {
    const access = await redeliveryQueries.endpointAccess(ctx.db, ctx.orgId, input.id);
    if (!access) throw notInWorkspace('webhookEndpoints', input.id);
    if (!access.enabled) throw new AppError('CONFLICT', 'The webhook endpoint is disabled: enable it first (webhooks.update with enabled: true), then redeliver');
    if (input.eventIds) {
      const eventIds = [...new Set(input.eventIds)];
      const types = await redeliveryQueries.eventTypesOf(ctx.db, ctx.orgId, eventIds);
      for (const eventId of eventIds) {
        const type = types.get(eventId);
        if (type === undefined) throw new AppError('NOT_FOUND', `eventIds: no event ${JSON.stringify(eventId)} in this workspace; nothing was queued`);
        const problem = typeProblem(access, type);
        if (problem) throw new AppError('UNPROCESSABLE_CONTENT', `eventIds: event ${JSON.stringify(eventId)} cannot be sent to this endpoint (${problem}); nothing was queued`);
      }
      return { queued: await redeliveryQueries.queueEvents(ctx.db, ctx.orgId, input.id, eventIds) };
    }
    const types = EVENT_TYPES.filter((type) => typeProblem(access, type) === undefined);
    if (types.length === 0) return { queued: 0 };
    return { queued: await redeliveryQueries.queueEventsSince(ctx.db, ctx.orgId, input.id, input.since!, types) };
  },
});
