import type { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import * as contacts from '../../db/contacts';
import { toPage } from '../../db/pagination';
import { contactsGetAllInput, toContactListFilters } from './contact.schema';
import { pageOutput } from '../shared/output-fields';
import { contactOutput } from './contact.schema';

export const contactsGetAllOutput = pageOutput(contactOutput);

export const contactsGetAll = defineProcedure({
  name: 'contacts.getAll',
  method: 'GET',
  scope: 'contacts.read',
  exposed: true,
  description: 'A page of contacts, newest first, optionally searched by name, email, phone or company.',
  input: contactsGetAllInput,
  output: contactsGetAllOutput,
  async handler({ ctx, input }): Promise<z.input<typeof contactsGetAllOutput>> {
    const page = { page: input.page, pageSize: input.pageSize };
    const found = await contacts.list(ctx.db, ctx.orgId, toContactListFilters(input), page);
    return toPage(found.contacts, found.total, page);
  },
});
