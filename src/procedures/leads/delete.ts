import type { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import { notInWorkspace } from '../shared/references';
import * as leads from '../../db/leads';
import { idOf, objectOf } from '../shared/fields';
import { recordEvents } from '../../events/record-events';
import { leadDeletedOutput } from './lead.schema';

export const leadsDelete = defineProcedure({
  name: 'leads.delete',
  method: 'POST',
  scope: 'leads.delete',
  exposed: true,
  description: 'Deletes a lead; its contact stays, as a contact of the workspace.',
  input: objectOf({ id: idOf('lead') }),
  output: leadDeletedOutput,
  async handler({ ctx, input }): Promise<z.input<typeof leadDeletedOutput>> {
    return ctx.db.transaction(async (trx) => {
      // The lead as it was, locked, so the event carries what was deleted.
      if (!(await leads.lockForUpdate(trx, ctx.orgId, input.id))) throw notInWorkspace('leads', input.id);
      const lead = (await leads.getById(trx, ctx.orgId, input.id))!;
      await leads.remove(trx, ctx.orgId, input.id);
      await recordEvents(trx, ctx, [{ type: 'lead.deleted', object: lead }]);
      return { id: input.id, deleted: true as const };
    });
  },
});
