import { defineProcedure } from '../../rpc/define-procedure';
import * as webhooksQueries from '../../db/webhooks';
import { toPage } from '../../db/pagination';
import { objectOf } from '../shared/fields';
import { pageFields } from '../shared/pagination.schema';
import { pageOutput } from '../shared/output-fields';
import * as endpointStatsQueries from '../../db/webhooks/endpoint-stats';
import { endpointWithStatsOutput } from './endpoint.schema';

export const webhooksGetAllInput = objectOf({ ...pageFields }).prefault({});

export const webhooksGetAllOutput = pageOutput(endpointWithStatsOutput).meta({ description: "A page of the workspace's webhook endpoints, newest first." });

export const webhooksGetAll = defineProcedure({
  name: 'webhooks.getAll',
  method: 'GET',
  scope: 'webhooks.read',
  exposed: true,
  description: "A page of the workspace's webhook endpoints, newest first (never their secrets), each with its last delivery status and 24-hour success rate.",
  input: webhooksGetAllInput,
  output: webhooksGetAllOutput,
  async handler({ ctx, input }) {
    const { endpoints, total } = await webhooksQueries.list(ctx.db, ctx.orgId, input);
    const stats = await endpointStatsQueries.statsOf(ctx.db, ctx.orgId, endpoints.map((e) => e.id));
    return toPage(endpoints.map((e) => ({ ...e, deliveryStats: stats.get(e.id) ?? endpointStatsQueries.noStats() })), total, input);
  },
});
