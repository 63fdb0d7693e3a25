import { defineProcedure } from '../../rpc/define-procedure';
import { idOf, objectOf } from '../shared/fields';
import { dateTimeWhere } from '../shared/format-fields';
import { changeInvoiceStatus } from './change-status';
import { invoiceOutput, type InvoiceOutput } from './invoice.schema';

/** Allowance for a caller whose clock runs slightly ahead of the server's and sends "now". */
const CLOCK_SKEW_MS = 60_000;

export const invoicesMarkPaidInput = objectOf({
  id: idOf('inv'),
  paidAt: dateTimeWhere((date) => date.getTime() <= Date.now() + CLOCK_SKEW_MS, 'a date-time not in the future').optional(),
});

export const invoicesMarkPaid = defineProcedure({
  name: 'invoices.markPaid',
  method: 'POST',
  scope: 'invoices.update',
  exposed: true,
  description: 'Marks a SENT invoice as PAID, at paidAt (not in the future) or now.',
  input: invoicesMarkPaidInput,
  output: invoiceOutput,
  handler({ ctx, input }): Promise<InvoiceOutput> {
    return changeInvoiceStatus(ctx, input.id, 'markPaid', { paidAt: input.paidAt ?? 'now' });
  },
});
