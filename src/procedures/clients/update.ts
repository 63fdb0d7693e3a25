import { defineProcedure } from '../../rpc/define-procedure';
import { recordEvents } from '../../events/record-events';
import { clientHistory } from '../../events/history';
import * as clientsQueries from '../../db/clients';
import { idOf, objectOf } from '../shared/fields';
import { notInWorkspace } from '../shared/references';
import { assertUnchangedSince, expectedUpdatedAtField } from '../shared/concurrency';
import { clientFields } from './client.schema';
import { clientOutput, type ClientOutput } from './client.schema';

/** Absent means unchanged; null clears a nullable field (contactId null unlinks the contact). */
export const clientsUpdateInput = objectOf({
  id: idOf('cli'),
  name: clientFields.name.optional(),
  contactId: clientFields.contactId.optional(),
  company: clientFields.company.optional(),
  email: clientFields.email.optional(),
  phone: clientFields.phone.optional(),
  notes: clientFields.notes.optional(),
  externalId: clientFields.externalId.optional(),
  expectedUpdatedAt: expectedUpdatedAtField,
});

export const clientsUpdate = defineProcedure({
  name: 'clients.update',
  method: 'POST',
  scope: 'clients.update',
  exposed: true,
  description: 'Changes the given fields of a client; absent fields stay, null clears.',
  input: clientsUpdateInput,
  output: clientOutput,
  async handler({ ctx, input }): Promise<ClientOutput> {
    return ctx.db.transaction(async (trx) => {
      const current = await clientsQueries.lockForUpdate(trx, ctx.orgId, input.id);
      if (!current) throw notInWorkspace('clients', input.id);
      assertUnchangedSince('client', current.updatedAt, input.expectedUpdatedAt);
      const client = (await clientsQueries.update(trx, ctx.orgId, input.id, {
        name: input.name,
        contactId: input.contactId,
        company: input.company,
        email: input.email,
        phone: input.phone,
        notes: input.notes,
        externalId: input.externalId,
      }))!;
      await recordEvents(trx, ctx, [{ type: 'client.updated', object: client, history: clientHistory(current, client) }]);
      return client;
    });
  },
});
