import type { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import * as invoicesQueries from '../../db/invoices';
import { toPage } from '../../db/pagination';
import { INVOICE_STATUSES } from '../../domain/invoice-status';
import { enumOf, idOf, objectOf } from '../shared/fields';
import { pageFields } from '../shared/pagination.schema';
import { pageOutput } from '../shared/output-fields';
import { invoiceOutput } from './invoice.schema';

export const invoicesGetAllInput = objectOf({
  status: enumOf(INVOICE_STATUSES).optional(),
  // Another workspace's client simply matches nothing: an empty page, never a 404 that would confirm it exists.
  clientId: idOf('cli').optional(),
  ...pageFields,
}).prefault({});

export const invoicesGetAllOutput = pageOutput(invoiceOutput).meta({ description: 'A page of invoices, newest first.' });

export const invoicesGetAll = defineProcedure({
  name: 'invoices.getAll',
  method: 'GET',
  scope: 'invoices.read',
  exposed: true,
  description: 'A page of invoices, newest first, each with its line items and totals in minor units.',
  input: invoicesGetAllInput,
  output: invoicesGetAllOutput,
  async handler({ ctx, input }): Promise<z.input<typeof invoicesGetAllOutput>> {
    const page = { page: input.page, pageSize: input.pageSize };
    const filters = { status: input.status, clientId: input.clientId };
    const { invoices, total } = await invoicesQueries.list(ctx.db, ctx.orgId, filters, page);
    return toPage(invoices, total, page);
  },
});
