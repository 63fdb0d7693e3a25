import { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import { notInWorkspace } from '../shared/references';
import * as leads from '../../db/leads';
import { CALL_OUTCOMES, assertCallCanBeLogged } from '../../domain/lead-status';
import { enumOf, idOf, objectOf, text } from '../shared/fields';
import { dateTimeField } from '../shared/format-fields';
import { recordEvents } from '../../events/record-events';
import { leadWriteEvents } from '../../events/lead-events';
import { leadCallOutput, leadOutput } from './lead.schema';

export const leadsLogCallInput = objectOf({
  id: idOf('lead'),
  outcome: enumOf(CALL_OUTCOMES),
  notes: text(10_000, { example: 'Interested in the annual plan; call back on Thursday' }).nullable().optional(),
  /** When to call next; absent or null clears the lead's next call. */
  nextCallAt: dateTimeField.nullable().optional(),
});

/** The call just logged, and the lead as it now is (its status the call's outcome). */
export const leadsLogCallOutput = z
  .strictObject({ call: leadCallOutput, lead: leadOutput })
  .meta({ description: 'The call just logged and the lead it moved.' });

export const leadsLogCall = defineProcedure({
  name: 'leads.logCall',
  method: 'POST',
  scope: 'leads.update',
  exposed: true,
  description: "Records a call attempt, sets the lead's status to its outcome and its next call (absent clears it).",
  input: leadsLogCallInput,
  output: leadsLogCallOutput,
  async handler({ ctx, input }): Promise<z.input<typeof leadsLogCallOutput>> {
    const nextCallAt = input.nextCallAt ?? null;
    return ctx.db.transaction(async (trx) => {
      const written = await leads.updateLead(trx, ctx.orgId, input.id, { fields: { status: input.outcome, nextCallAt } }, (before) => {
        assertCallCanBeLogged(before.status, input.outcome);
      });
      if (!written) throw notInWorkspace('leads', input.id);
      const call = await leads.insertCall(trx, ctx.orgId, {
        leadId: input.id,
        outcome: input.outcome,
        notes: input.notes ?? null,
        nextCallAt,
        loggedBy: ctx.actor.id,
      });
      const { lead } = written;
      await recordEvents(trx, ctx, [{ type: 'lead.call_logged', object: lead, details: { call } }, ...leadWriteEvents(written)]);
      return { call, lead };
    });
  },
});
