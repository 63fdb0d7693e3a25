import type { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import * as clientsQueries from '../../db/clients';
import { toPage } from '../../db/pagination';
import { clientsGetAllInput, toClientListFilters } from './client.schema';
import { pageOutput } from '../shared/output-fields';
import { clientOutput } from './client.schema';

export const clientsGetAllOutput = pageOutput(clientOutput);

export const clientsGetAll = defineProcedure({
  name: 'clients.getAll',
  method: 'GET',
  scope: 'clients.read',
  exposed: true,
  description: 'A page of clients, newest first, optionally searched by name, company, email or phone.',
  input: clientsGetAllInput,
  output: clientsGetAllOutput,
  async handler({ ctx, input }): Promise<z.input<typeof clientsGetAllOutput>> {
    const page = { page: input.page, pageSize: input.pageSize };
    const { clients, total } = await clientsQueries.list(ctx.db, ctx.orgId, toClientListFilters(input), page);
    return toPage(clients, total, page);
  },
});
