import type { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import * as leads from '../../db/leads';
import { leadsGetAllInput, toLeadListFilters } from './lead-list.schema';
import { cursorPaginationOutput, pageOutput } from '../shared/output-fields';
import { leadOutput } from './lead.schema';

export const leadsGetAllOutput = pageOutput(leadOutput, cursorPaginationOutput);

export const leadsGetAll = defineProcedure({
  name: 'leads.getAll',
  method: 'GET',
  scope: 'leads.read',
  exposed: true,
  description: 'A page of leads, next call first, with the same filters and total as GET /api/v1/leads.',
  input: leadsGetAllInput,
  output: leadsGetAllOutput,
  async handler({ ctx, input }): Promise<z.input<typeof leadsGetAllOutput>> {
    return leads.listPage(ctx.db, ctx.hotReads, ctx.orgId, toLeadListFilters(input), input, 'leads');
  },
});
