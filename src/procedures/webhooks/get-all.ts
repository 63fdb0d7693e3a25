import { defineProcedure } from '../../rpc/define-procedure';
import * as webhooksQueries from '../../db/webhooks';
import { toPage } from '../../db/pagination';
import { objectOf } from '../shared/fields';
import { pageFields } from '../shared/pagination.schema';
import { pageOutput } from '../shared/output-fields';
import { endpointOutput } from './endpoint.schema';

export const webhooksGetAllInput = objectOf({ ...pageFields }).prefault({});

export const webhooksGetAllOutput = pageOutput(endpointOutput).meta({ description: "A page of the workspace's webhook endpoints, newest first." });

export const webhooksGetAll = defineProcedure({
  name: 'webhooks.getAll',
  method: 'GET',
  scope: 'webhooks.read',
  exposed: true,
  description: "A page of the workspace's webhook endpoints, newest first (never their secrets).",
  input: webhooksGetAllInput,
  output: webhooksGetAllOutput,
  async handler({ ctx, input }) {
    const { endpoints, total } = await webhooksQueries.list(ctx.db, ctx.orgId, input);
    return toPage(endpoints, total, input);
  },
});
