import { defineProcedure } from '../../rpc/define-procedure';
import * as invoicesQueries from '../../db/invoices';
import { idOf, objectOf } from '../shared/fields';
import { invoiceNotFound } from './invoice-fields';
import { invoiceOutput, type InvoiceOutput } from './invoice.schema';

export const invoicesGetById = defineProcedure({
  name: 'invoices.getById',
  method: 'GET',
  scope: 'invoices.read',
  exposed: true,
  description: 'One invoice by id, with its line items and totals in minor units.',
  input: objectOf({ id: idOf('inv') }),
  output: invoiceOutput,
  async handler({ ctx, input }): Promise<InvoiceOutput> {
    const invoice = await invoicesQueries.getById(ctx.db, ctx.orgId, input.id);
    if (!invoice) throw invoiceNotFound(input.id);
    return invoice;
  },
});
