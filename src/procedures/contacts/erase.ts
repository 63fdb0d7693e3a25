import { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import { recordEvents } from '../../events/record-events';
import { eraseContact } from '../../db/erasure';
import { blankPersonalFields } from '../../db/events/personal-data';
import { idOf, objectOf } from '../shared/fields';
import { idOutput } from '../shared/output-fields';
import { notInWorkspace } from '../shared/references';

export const contactErasedOutput = z
  .strictObject({
    id: idOutput('con'),
    erased: z.literal(true),
    leadIds: z.array(idOutput('lead')).meta({ description: 'The leads erased with the contact, including any deleted before.' }),
    erasureId: idOutput('era').meta({ description: 'The audit record of this erasure.' }),
  })
  .meta({ description: 'What contacts.erase answers: the ids it erased, and its audit record.' });

export const contactsErase = defineProcedure({
  name: 'contacts.erase',
  method: 'POST',
  scope: 'contacts.erase',
  exposed: true,
  description:
    'Forgets a person for good (GDPR article 17): the contact, its leads with their calls and stored copies, the personal fields of ' +
    'their events and webhook attempts, stored idempotent answers and failed import rows that hold them. Clients and tasks keep their ' +
    'own fields and lose the link. Records contact.erased (the ids, personal fields blank) and an audit row. No undo.',
  input: objectOf({ id: idOf('con') }),
  output: contactErasedOutput,
  async handler({ ctx, input }): Promise<z.input<typeof contactErasedOutput>> {
    return ctx.db.transaction(async (trx) => {
      // The request id joins the audit row once the call's context carries it (the change history's work).
      const erased = await eraseContact(trx, ctx.orgId, input.id, { actor: ctx.actor, requestId: ctx.call.requestId });
      if (!erased) throw notInWorkspace('contacts', input.id);
      // The contact's shape, every personal field blank, as its earlier events now are.
      const object = blankPersonalFields(erased.contact);
      await recordEvents(trx, ctx, [{ type: 'contact.erased', object, details: { leadIds: erased.leadIds, erased: true } }]);
      return { id: input.id, erased: true as const, leadIds: erased.leadIds, erasureId: erased.erasureId };
    });
  },
});
