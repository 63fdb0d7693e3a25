import { defineProcedure } from '../../rpc/define-procedure';
import * as leads from '../../db/leads';
import { leadsGetAllInput, toLeadListFilters } from './lead-list.schema';

export const leadsGetAll = defineProcedure({
  name: 'leads.getAll',
  method: 'GET',
  scope: 'leads.read',
  exposed: true,
  description: 'A page of leads, next call first, with the same filters and total as GET /api/v1/leads.',
  input: leadsGetAllInput,
  async handler({ ctx, input }) {
    return leads.listLeadsPage(ctx.db, ctx.orgId, toLeadListFilters(input), input);
  },
});
