import { defineProcedure } from '../../rpc/define-procedure';
import { idOf, objectOf } from '../shared/fields';
import { changeInvoiceStatus } from './change-status';
import { invoiceOutput, type InvoiceOutput } from './invoice.schema';

export const invoicesVoid = defineProcedure({
  name: 'invoices.void',
  method: 'POST',
  scope: 'invoices.update',
  exposed: true,
  description: 'Voids a DRAFT or SENT invoice (voidedAt now); a PAID invoice cannot be voided.',
  input: objectOf({ id: idOf('inv') }),
  output: invoiceOutput,
  handler({ ctx, input }): Promise<InvoiceOutput> {
    return changeInvoiceStatus(ctx, input.id, 'void', { voidedAt: 'now' });
  },
});
