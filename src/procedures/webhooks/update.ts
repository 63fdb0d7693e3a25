import { defineProcedure } from '../../rpc/define-procedure';
import * as webhooksQueries from '../../db/webhooks';
import { booleanField, idOf, objectOf } from '../shared/fields';
import { assertUnchangedSince, expectedUpdatedAtField } from '../shared/concurrency';
import { notInWorkspace } from '../shared/references';
import {
  assertCanSubscribe, endpointDescriptionField, endpointEventsField, endpointOutput, endpointUrlField, ownerOf,
} from './endpoint.schema';

/** Absent means unchanged; description null clears it. */
export const webhooksUpdateInput = objectOf({
  id: idOf('wh'),
  url: endpointUrlField.optional(),
  events: endpointEventsField.optional(),
  description: endpointDescriptionField.optional(),
  enabled: booleanField.optional(),
  expectedUpdatedAt: expectedUpdatedAtField,
});

export const webhooksUpdate = defineProcedure({
  name: 'webhooks.update',
  method: 'POST',
  scope: 'webhooks.update',
  exposed: true,
  description: 'Changes the given fields of a webhook endpoint; enabled: true also clears its failure state.',
  input: webhooksUpdateInput,
  output: endpointOutput,
  async handler({ ctx, input }) {
    return ctx.db.transaction(async (trx) => {
      const current = await webhooksQueries.lockForUpdate(trx, ctx.orgId, input.id);
      if (!current) throw notInWorkspace('webhookEndpoints', input.id);
      assertUnchangedSince('webhook endpoint', current.updatedAt, input.expectedUpdatedAt);
      // Whoever chooses where events go, or which, must be able to read them all: the endpoint
      // becomes theirs, so a key without leads.read cannot point lead events at its own server.
      const redirects = input.url !== undefined || input.events !== undefined;
      if (redirects) assertCanSubscribe(ctx.scopes, input.events ?? current.events);
      return (await webhooksQueries.update(trx, ctx.orgId, input.id, {
        url: input.url,
        events: input.events,
        description: input.description,
        enabled: input.enabled,
        ...(redirects ? ownerOf(ctx) : {}),
      }))!;
    });
  },
});
