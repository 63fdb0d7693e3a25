import { defineProcedure } from '../../rpc/define-procedure';
import * as webhooksQueries from '../../db/webhooks';
import { idOf, objectOf } from '../shared/fields';
import { notInWorkspace } from '../shared/references';
import { endpointOutput } from './endpoint.schema';

export const webhooksGetById = defineProcedure({
  name: 'webhooks.getById',
  method: 'GET',
  scope: 'webhooks.read',
  exposed: true,
  description: 'One webhook endpoint by id (never its secret).',
  input: objectOf({ id: idOf('wh') }),
  output: endpointOutput,
  async handler({ ctx, input }) {
    const endpoint = await webhooksQueries.getById(ctx.db, ctx.orgId, input.id);
    if (!endpoint) throw notInWorkspace('webhookEndpoints', input.id);
    return endpoint;
  },
});
