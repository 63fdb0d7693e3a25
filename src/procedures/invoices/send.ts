import { defineProcedure } from '../../rpc/define-procedure';
import { idOf, objectOf } from '../shared/fields';
import { changeInvoiceStatus } from './change-status';
import { invoiceOutput, type InvoiceOutput } from './invoice.schema';

export const invoicesSend = defineProcedure({
  name: 'invoices.send',
  method: 'POST',
  scope: 'invoices.update',
  exposed: true,
  description: 'Marks a DRAFT invoice as SENT (sentAt now); it can no longer be changed or deleted.',
  input: objectOf({ id: idOf('inv') }),
  output: invoiceOutput,
  handler({ ctx, input }): Promise<InvoiceOutput> {
    return changeInvoiceStatus(ctx, input.id, 'send', { sentAt: 'now' });
  },
});
