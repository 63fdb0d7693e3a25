import { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import { notInWorkspace } from '../shared/references';
import * as leadsQueries from '../../db/queries/leads.queries';
import { idField } from '../shared/fields';

export const leadsDelete = defineProcedure({
  name: 'leads.delete',
  method: 'POST',
  scope: 'leads.delete',
  exposed: true,
  description: 'Deletes a lead; its contact stays, as a contact of the workspace.',
  input: z.strictObject({ id: idField }),
  async handler({ ctx, input }) {
    if (!(await leadsQueries.remove(ctx.db, ctx.orgId, input.id))) throw notInWorkspace('leads', input.id);
    return { id: input.id, deleted: true as const };
  },
});
