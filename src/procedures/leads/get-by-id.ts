import { defineProcedure } from '../../rpc/define-procedure';
import { notInWorkspace } from '../shared/references';
import * as leads from '../../db/leads';
import { idOf, objectOf } from '../shared/fields';
import { leadOutput, type LeadOutput } from './lead.schema';

export const leadsGetById = defineProcedure({
  name: 'leads.getById',
  method: 'GET',
  scope: 'leads.read',
  exposed: true,
  description: 'One lead by id.',
  input: objectOf({ id: idOf('lead') }),
  output: leadOutput,
  async handler({ ctx, input }): Promise<LeadOutput> {
    const lead = await leads.getById(ctx.db, ctx.hotReads, ctx.orgId, input.id);
    if (!lead) throw notInWorkspace('leads', input.id);
    return lead;
  },
});
