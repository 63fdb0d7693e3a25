import { defineProcedure } from '../../rpc/define-procedure';
import { recordEvents } from '../../events/record-events';
import * as clientsQueries from '../../db/clients';
import { objectOf } from '../shared/fields';
import { clientFields } from './client.schema';
import { clientOutput, type ClientOutput } from './client.schema';

export const clientsCreateInput = objectOf({
  name: clientFields.name,
  contactId: clientFields.contactId.optional(),
  company: clientFields.company.optional(),
  email: clientFields.email.optional(),
  phone: clientFields.phone.optional(),
  notes: clientFields.notes.optional(),
  externalId: clientFields.externalId.unwrap().optional(),
});

export const clientsCreate = defineProcedure({
  name: 'clients.create',
  method: 'POST',
  scope: 'clients.create',
  exposed: true,
  description: 'Creates a client, optionally linked to a contact of the workspace; phone stored in E.164, email lowercased.',
  input: clientsCreateInput,
  output: clientOutput,
  async handler({ ctx, input }): Promise<ClientOutput> {
    return ctx.db.transaction(async (trx) => {
      const client = await clientsQueries.insert(trx, ctx.orgId, {
        name: input.name,
        contactId: input.contactId ?? null,
        company: input.company ?? null,
        email: input.email ?? null,
        phone: input.phone ?? null,
        notes: input.notes ?? null,
        externalId: input.externalId ?? null,
      });
      await recordEvents(trx, ctx, [{ type: 'client.created', object: client }]);
      return client;
    });
  },
});
