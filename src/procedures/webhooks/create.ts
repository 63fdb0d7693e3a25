import { defineProcedure } from '../../rpc/define-procedure';
import { AppError } from '../../errors/app-error';
import * as webhooksQueries from '../../db/webhooks';
import { newEndpointSecret } from '../../webhooks/endpoint-secret';
import { objectOf } from '../shared/fields';
import {
  MAX_ENDPOINTS_PER_WORKSPACE, assertCanSubscribe, endpointCreatedOutput, endpointDescriptionField, endpointEventsField, endpointUrlField, ownerOf,
} from './endpoint.schema';

export const webhooksCreateInput = objectOf({
  url: endpointUrlField,
  events: endpointEventsField,
  description: endpointDescriptionField.optional(),
});

export const webhooksCreate = defineProcedure({
  name: 'webhooks.create',
  method: 'POST',
  scope: 'webhooks.create',
  exposed: true,
  description: 'Adds a webhook endpoint subscribed to event types (or "*"); answers its signing secret, shown only here.',
  input: webhooksCreateInput,
  output: endpointCreatedOutput,
  async handler({ ctx, input }) {
    assertCanSubscribe(ctx.scopes, input.events);
    const secret = newEndpointSecret();
    const endpoint = await ctx.db.transaction(async (trx) => {
      await webhooksQueries.lockWorkspaceEndpoints(trx, ctx.orgId);
      if ((await webhooksQueries.countInWorkspace(trx, ctx.orgId)) >= MAX_ENDPOINTS_PER_WORKSPACE) {
        throw new AppError('CONFLICT', `A workspace has at most ${MAX_ENDPOINTS_PER_WORKSPACE} webhook endpoints: delete one first`);
      }
      return webhooksQueries.insert(trx, ctx.orgId, {
        url: input.url, description: input.description ?? null, events: input.events, secret, ...ownerOf(ctx),
      });
    });
    return { ...endpoint, secret };
  },
});
