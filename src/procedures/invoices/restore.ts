import { restoreProcedure } from '../shared/trash';
import { restoreInvoice } from '../../db/trash/restore';
import { invoiceOutput } from './invoice.schema';

export const invoicesRestore = restoreProcedure({
  name: 'invoices.restore',
  scope: 'invoices.delete',
  table: 'invoices',
  prefix: 'inv',
  noun: 'invoice',
  event: 'invoice.restored',
  output: invoiceOutput,
  restore: restoreInvoice,
});
