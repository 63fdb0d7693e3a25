import { defineProcedure } from '../../rpc/define-procedure';
import * as clientsQueries from '../../db/clients';
import { idOf, objectOf } from '../shared/fields';
import { notInWorkspace } from '../shared/references';
import { clientOutput, type ClientOutput } from './client.schema';

export const clientsGetById = defineProcedure({
  name: 'clients.getById',
  method: 'GET',
  scope: 'clients.read',
  exposed: true,
  description: 'One client by id.',
  input: objectOf({ id: idOf('cli') }),
  output: clientOutput,
  async handler({ ctx, input }): Promise<ClientOutput> {
    const client = await clientsQueries.getById(ctx.db, ctx.orgId, input.id);
    if (!client) throw notInWorkspace('clients', input.id);
    return client;
  },
});
