import { defineProcedure } from '../../rpc/define-procedure';
import * as webhooksQueries from '../../db/webhooks';
import { idOf, objectOf } from '../shared/fields';
import { notInWorkspace } from '../shared/references';
import * as endpointStatsQueries from '../../db/webhooks/endpoint-stats';
import { endpointWithStatsOutput } from './endpoint.schema';

export const webhooksGetById = defineProcedure({
  name: 'webhooks.getById',
  method: 'GET',
  scope: 'webhooks.read',
  exposed: true,
  description: 'One webhook endpoint by id (never its secret), with its last delivery status and 24-hour success rate.',
  input: objectOf({ id: idOf('wh') }),
  output: endpointWithStatsOutput,
  async handler({ ctx, input }) {
    const endpoint = await webhooksQueries.getById(ctx.db, ctx.orgId, input.id);
    if (!endpoint) throw notInWorkspace('webhookEndpoints', input.id);
    const stats = await endpointStatsQueries.statsOf(ctx.db, ctx.orgId, [endpoint.id]);
    return { ...endpoint, deliveryStats: stats.get(endpoint.id) ?? endpointStatsQueries.noStats() };
  },
});
