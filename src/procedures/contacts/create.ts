import { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import * as contactsQueries from '../../db/queries/contacts.queries';
import { uniqueInOrder } from '../../domain/phone';
import { normalisePhones, phonesAt } from '../shared/phones';
import { contactFields } from './contact.schema';

export const contactsCreateInput = z.strictObject({
  name: contactFields.name,
  phones: contactFields.phones.optional(),
  emails: contactFields.emails.optional(),
  company: contactFields.company.optional(),
});

export const contactsCreate = defineProcedure({
  name: 'contacts.create',
  method: 'POST',
  scope: 'contacts.create',
  exposed: true,
  description: 'Creates a contact; phones are stored in E.164 (the first is primary), emails lowercased and de-duplicated.',
  input: contactsCreateInput,
  async handler({ ctx, input }) {
    const phones = normalisePhones(phonesAt('phones', input.phones ?? []), ctx.org.phoneRegion);
    const id = await contactsQueries.insert(ctx.db, ctx.orgId, {
      name: input.name,
      phones,
      emails: uniqueInOrder(input.emails ?? []),
      company: input.company ?? null,
    });
    return (await contactsQueries.getById(ctx.db, ctx.orgId, id))!;
  },
});
