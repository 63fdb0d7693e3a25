import type { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import { notInWorkspace } from '../shared/references';
import * as leads from '../../db/leads';
import { idOf, objectOf } from '../shared/fields';
import { recordEvents } from '../../events/record-events';
import { leadHistory } from '../../events/history';
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
      // The event carries the lead as it was deleted.
      const deleted = await leads.deleteLead(trx, ctx.orgId, input.id, ctx.actor);
      if (!deleted) throw notInWorkspace('leads', input.id);
      await recordEvents(trx, ctx, [{ type: 'lead.deleted', object: deleted.before, history: leadHistory(deleted.before, null) }]);
      return { id: input.id, deleted: true as const };
    });
  },
});
