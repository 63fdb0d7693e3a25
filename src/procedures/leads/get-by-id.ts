import { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import { notInWorkspace } from '../shared/references';
import * as leadsQueries from '../../db/queries/leads.queries';
import { idField } from '../shared/fields';

export const leadsGetById = defineProcedure({
  name: 'leads.getById',
  method: 'GET',
  scope: 'leads.read',
  exposed: true,
  description: 'One lead by id.',
  input: z.strictObject({ id: idField }),
  async handler({ ctx, input }) {
    const lead = await leadsQueries.getById(ctx.db, ctx.orgId, input.id);
    if (!lead) throw notInWorkspace('leads', input.id);
    return lead;
  },
});
