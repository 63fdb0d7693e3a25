import { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import { recordEvents } from '../../events/record-events';
import * as clientsQueries from '../../db/queries/clients.queries';
import { assertInWorkspace } from '../shared/references';
import { clientFields, normaliseClientPhone } from './client.schema';

export const clientsCreateInput = z.strictObject({
  name: clientFields.name,
  contactId: clientFields.contactId.optional(),
  company: clientFields.company.optional(),
  email: clientFields.email.optional(),
  phone: clientFields.phone.optional(),
  notes: clientFields.notes.optional(),
});

export const clientsCreate = defineProcedure({
  name: 'clients.create',
  method: 'POST',
  scope: 'clients.create',
  exposed: true,
  description: 'Creates a client, optionally linked to a contact of the workspace; phone stored in E.164, email lowercased.',
  input: clientsCreateInput,
  async handler({ ctx, input }) {
    const phone = normaliseClientPhone(input.phone, ctx.org.phoneRegion) ?? null;
    return ctx.db.transaction(async (trx) => {
      if (input.contactId) await assertInWorkspace(trx, 'contacts', ctx.orgId, input.contactId, 'contactId');
      const client = await clientsQueries.insert(trx, ctx.orgId, {
        name: input.name,
        contactId: input.contactId ?? null,
        company: input.company ?? null,
        email: input.email ?? null,
        phone,
        notes: input.notes ?? null,
      });
      await recordEvents(trx, ctx, [{ type: 'client.created', object: client }]);
      return client;
    });
  },
});
