import { defineProcedure } from '../../rpc/define-procedure';
import { recordEvents } from '../../events/record-events';
import * as contacts from '../../db/contacts';
import { uniqueInOrder } from '../../domain/phone';
import { objectOf } from '../shared/fields';
import { contactFields } from './contact.schema';
import { contactOutput, type ContactOutput } from './contact.schema';

export const contactsCreateInput = objectOf({
  name: contactFields.name,
  phones: contactFields.phones.optional(),
  emails: contactFields.emails.optional(),
  company: contactFields.company.optional(),
  externalId: contactFields.externalId.unwrap().optional(),
});

export const contactsCreate = defineProcedure({
  name: 'contacts.create',
  method: 'POST',
  scope: 'contacts.create',
  exposed: true,
  description: 'Creates a contact; phones are stored in E.164 (the first is primary), emails lowercased and de-duplicated.',
  input: contactsCreateInput,
  output: contactOutput,
  async handler({ ctx, input }): Promise<ContactOutput> {
    const phones = uniqueInOrder(input.phones ?? []);
    return ctx.db.transaction(async (trx) => {
      const contact = await contacts.insert(trx, ctx.orgId, {
        name: input.name,
        phones,
        emails: uniqueInOrder(input.emails ?? []),
        company: input.company ?? null,
        externalId: input.externalId ?? null,
      });
      await recordEvents(trx, ctx, [{ type: 'contact.created', object: contact }]);
      return contact;
    });
  },
});
