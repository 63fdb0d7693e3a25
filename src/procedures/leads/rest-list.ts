import { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import * as leads from '../../db/leads';
import { leadsRestListInput, toLeadListFilters } from './lead-list.schema';

/**
 * `GET /api/v1/leads` as a procedure, so the REST list comes through runProcedure like every other
 * route (scope, the workspace's node, input, output check). It answers the page's JSON text in
 * pieces with each lead as stored (send-json.ts writes them as they are): the same page, filters
 * and total as `leads.getAll`, whose Lead objects it would otherwise have to build and serialise.
 * Not in the registry: the action endpoints have `leads.getAll`, and this answer is no envelope's.
 * The spec leaves the REST list open to every tier, so its route applies no maximum-tier rule.
 */
export const leadsRestList = defineProcedure({
  name: 'leads.list',
  method: 'GET',
  scope: 'leads.read',
  exposed: true,
  description: 'GET /api/v1/leads: a page of leads as plain JSON, with the filters and total of leads.getAll.',
  input: leadsRestListInput,
  output: z.array(z.string()),
  async handler({ ctx, input }) {
    return leads.listPage(ctx.db, ctx.hotReads, ctx.orgId, toLeadListFilters(input), input, 'json');
  },
});
