import { defineProcedure } from '../../rpc/define-procedure';
import { recordEvents } from '../../events/record-events';
import { contactHistory } from '../../events/history';
import * as contacts from '../../db/contacts';
import * as leads from '../../db/leads';
import { uniqueInOrder } from '../../domain/phone';
import { idOf, objectOf } from '../shared/fields';
import { notInWorkspace } from '../shared/references';
import { assertUnchangedSince, expectedUpdatedAtField } from '../shared/concurrency';
import { contactFields } from './contact.schema';
import { contactOutput, type ContactOutput } from './contact.schema';

/** Absent means unchanged; `company: null` clears it; `phones: []` / `emails: []` remove them all. */
export const contactsUpdateInput = objectOf({
  id: idOf('con'),
  name: contactFields.name.optional(),
  phones: contactFields.phones.optional(),
  emails: contactFields.emails.optional(),
  company: contactFields.company.optional(),
  externalId: contactFields.externalId.optional(),
  expectedUpdatedAt: expectedUpdatedAtField,
});

export const contactsUpdate = defineProcedure({
  name: 'contacts.update',
  method: 'POST',
  scope: 'contacts.update',
  exposed: true,
  description: 'Changes the given fields of a contact (and so of its leads); absent fields stay, null clears company.',
  input: contactsUpdateInput,
  output: contactOutput,
  async handler({ ctx, input }): Promise<ContactOutput> {
    const phones = input.phones && uniqueInOrder(input.phones);
    const patch = { name: input.name, phones, emails: input.emails && uniqueInOrder(input.emails), company: input.company };
    return ctx.db.transaction(async (trx) => {
      const current = await contacts.lockForUpdate(trx, ctx.orgId, input.id);
      if (!current) throw notInWorkspace('contacts', input.id);
      assertUnchangedSince('contact', current.updatedAt, input.expectedUpdatedAt);
      // Through the leads' write unit: the contact's leads keep copies of its person fields.
      const { contact } = (await leads.updateContact(trx, ctx.orgId, input.id, patch, { externalId: input.externalId }))!;
      await recordEvents(trx, ctx, [{ type: 'contact.updated', object: contact, history: contactHistory(current, contact) }]);
      return contact;
    });
  },
});
