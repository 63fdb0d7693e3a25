import { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import { dateTimeField, idField } from '../shared/fields';
import { changeInvoiceStatus } from './change-status';

/** Allowance for a caller whose clock runs slightly ahead of the server's and sends "now". */
const CLOCK_SKEW_MS = 60_000;

export const invoicesMarkPaidInput = z.strictObject({
  id: idField,
  paidAt: dateTimeField
    .refine((date) => date.getTime() <= Date.now() + CLOCK_SKEW_MS, 'must not be in the future')
    .optional(),
});

export const invoicesMarkPaid = defineProcedure({
  name: 'invoices.markPaid',
  method: 'POST',
  scope: 'invoices.update',
  exposed: true,
  description: 'Marks a SENT invoice as PAID, at paidAt (not in the future) or now.',
  input: invoicesMarkPaidInput,
  handler({ ctx, input }) {
    return changeInvoiceStatus(ctx, input.id, 'markPaid', { paidAt: input.paidAt ?? 'now' });
  },
});
