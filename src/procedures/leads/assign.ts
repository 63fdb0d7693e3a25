import { defineProcedure } from '../../rpc/define-procedure';
import * as leads from '../../db/leads';
import { idOf, objectOf } from '../shared/fields';
import { notInWorkspace, referenceTo } from '../shared/references';
import { recordEvents } from '../../events/record-events';
import { leadWriteEvents } from '../../events/lead-events';
import { leadOutput, type LeadOutput } from './lead.schema';

export const leadsAssignInput = objectOf({
  id: idOf('lead'),
  /** A member of the workspace, or null to leave the lead unassigned. */
  assignedToId: referenceTo('orgMembers').nullable(),
});

export const leadsAssign = defineProcedure({
  name: 'leads.assign',
  method: 'POST',
  scope: 'leads.update',
  exposed: true,
  description: 'Gives a lead to a member of the workspace, or unassigns it with null.',
  input: leadsAssignInput,
  output: leadOutput,
  async handler({ ctx, input }): Promise<LeadOutput> {
    return ctx.db.transaction(async (trx) => {
      const written = await leads.updateLead(trx, ctx.orgId, input.id, { fields: { assignedToId: input.assignedToId } });
      if (!written) throw notInWorkspace('leads', input.id);
      await recordEvents(trx, ctx, leadWriteEvents(written));
      return written.lead;
    });
  },
});
