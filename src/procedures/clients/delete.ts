import type { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import { recordEvents } from '../../events/record-events';
import { clientHistory } from '../../events/history';
import * as clientsQueries from '../../db/clients';
import { AppError } from '../../errors/app-error';
import { idOf, objectOf } from '../shared/fields';
import { notInWorkspace } from '../shared/references';
import { clientDeletedOutput } from './client.schema';

export const clientsDelete = defineProcedure({
  name: 'clients.delete',
  method: 'POST',
  scope: 'clients.delete',
  exposed: true,
  description: 'Deletes a client without invoices (409 otherwise); its leads and tasks keep their fields and lose the link.',
  input: objectOf({ id: idOf('cli') }),
  output: clientDeletedOutput,
  async handler({ ctx, input }): Promise<z.input<typeof clientDeletedOutput>> {
    return ctx.db.transaction(async (trx) => {
      // The lock makes the check and the delete one step: an invoice being created for the client waits for it.
      if (!(await clientsQueries.lockForUpdate(trx, ctx.orgId, input.id))) throw notInWorkspace('clients', input.id);
      if (await clientsQueries.hasInvoices(trx, ctx.orgId, input.id)) {
        throw new AppError('CONFLICT', `Client ${JSON.stringify(input.id)} has invoices: an invoiced client cannot be deleted`);
      }
      const client = (await clientsQueries.getById(trx, ctx.orgId, input.id))!;
      await clientsQueries.remove(trx, ctx.orgId, input.id, ctx.actor);
      await recordEvents(trx, ctx, [{ type: 'client.deleted', object: client, history: clientHistory(client, null) }]);
      return { id: input.id, deleted: true as const };
    });
  },
});
