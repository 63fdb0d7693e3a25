import { defineProcedure } from '../../rpc/define-procedure';
import * as leads from '../../db/leads';
import { LEAD_STATUSES, assertStatusChangeAllowed } from '../../domain/lead-status';
import { uniqueInOrder } from '../../domain/phone';
import { enumOf, externalIdField, idOf, listOf, objectOf, requiredText, text } from '../shared/fields';
import { dateTimeField, emailField, phoneField } from '../shared/format-fields';
import { notInWorkspace, referenceTo } from '../shared/references';
import { assertUnchangedSince, expectedUpdatedAtField } from '../shared/concurrency';
import { recordEvents } from '../../events/record-events';
import { leadWriteEvents } from '../../events/lead-events';
import { leadOutput, type LeadOutput } from './lead.schema';

/** Absent means unchanged; null clears a nullable field. */
export const leadsUpdateInput = objectOf({
  id: idOf('lead'),
  name: requiredText(200, { example: 'Ana Souza' }).optional(),
  phones: listOf(phoneField, { of: 'phone numbers', max: 20 }).optional(),
  emails: listOf(emailField, { of: 'email addresses', max: 20 }).optional(),
  company: text(200, { example: 'Acme Ltd' }).nullable().optional(),
  source: text(200, { example: 'referral' }).nullable().optional(),
  notes: text(10_000, { example: 'Interested in the annual plan; call back on Thursday' }).nullable().optional(),
  status: enumOf(LEAD_STATUSES).optional(),
  nextCallAt: dateTimeField.nullable().optional(),
  assignedToId: referenceTo('orgMembers').nullable().optional(),
  /** Another lead's external id is a 409; null clears it. */
  externalId: externalIdField.nullable().optional(),
  /** The `updatedAt` the caller last read; a lead changed since is a 409 and nothing is written. */
  expectedUpdatedAt: expectedUpdatedAtField,
});

export const leadsUpdate = defineProcedure({
  name: 'leads.update',
  method: 'POST',
  scope: 'leads.update',
  exposed: true,
  description: 'Changes the given fields of a lead (and its contact); absent fields stay, null clears.',
  input: leadsUpdateInput,
  output: leadOutput,
  async handler({ ctx, input }): Promise<LeadOutput> {
    const phones = input.phones && uniqueInOrder(input.phones);
    const emails = input.emails && uniqueInOrder(input.emails);
    return ctx.db.transaction(async (trx) => {
      const change = {
        person: { name: input.name, phones, emails, company: input.company },
        fields: { status: input.status, source: input.source, notes: input.notes, nextCallAt: input.nextCallAt, assignedToId: input.assignedToId,
          externalId: input.externalId },
      };
      const written = await leads.updateLead(trx, ctx.orgId, input.id, change, (before) => {
        assertUnchangedSince('lead', before.updatedAt, input.expectedUpdatedAt);
        if (input.status) assertStatusChangeAllowed(before.status, input.status);
      });
      if (!written) throw notInWorkspace('leads', input.id);
      await recordEvents(trx, ctx, leadWriteEvents(written));
      return written.lead;
    });
  },
});
