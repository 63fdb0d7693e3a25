import type { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import * as webhooksQueries from '../../db/webhooks';
import { idOf, objectOf } from '../shared/fields';
import { notInWorkspace } from '../shared/references';
import { endpointDeletedOutput } from './endpoint.schema';

export const webhooksDelete = defineProcedure({
  name: 'webhooks.delete',
  method: 'POST',
  scope: 'webhooks.delete',
  exposed: true,
  description: 'Deletes a webhook endpoint; its pending deliveries are never sent, and its delivery log goes with it.',
  input: objectOf({ id: idOf('wh') }),
  output: endpointDeletedOutput,
  async handler({ ctx, input }): Promise<z.input<typeof endpointDeletedOutput>> {
    if (!(await webhooksQueries.remove(ctx.db, ctx.orgId, input.id))) throw notInWorkspace('webhookEndpoints', input.id);
    return { id: input.id, deleted: true as const };
  },
});
