import { defineProcedure } from '../../rpc/define-procedure';
import * as contacts from '../../db/contacts';
import { idOf, objectOf } from '../shared/fields';
import { notInWorkspace } from '../shared/references';
import { contactOutput, type ContactOutput } from './contact.schema';

export const contactsGetById = defineProcedure({
  name: 'contacts.getById',
  method: 'GET',
  scope: 'contacts.read',
  exposed: true,
  description: 'One contact by id.',
  input: objectOf({ id: idOf('con') }),
  output: contactOutput,
  async handler({ ctx, input }): Promise<ContactOutput> {
    const contact = await contacts.getById(ctx.db, ctx.orgId, input.id);
    if (!contact) throw notInWorkspace('contacts', input.id);
    return contact;
  },
});
