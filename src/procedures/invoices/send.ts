import { defineProcedure } from '../../rpc/define-procedure';
import { idOf, objectOf } from '../shared/fields';
import { changeInvoiceStatus } from './change-status';

export const invoicesSend = defineProcedure({
  name: 'invoices.send',
  method: 'POST',
  scope: 'invoices.update',
  exposed: true,
  description: 'Marks a DRAFT invoice as SENT (sentAt now); it can no longer be changed or deleted.',
  input: objectOf({ id: idOf('inv') }),
  handler({ ctx, input }) {
    return changeInvoiceStatus(ctx, input.id, 'send', { sentAt: 'now' });
  },
});
