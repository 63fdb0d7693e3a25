import { getDeletedProcedure } from '../shared/trash';
import { listDeletedInvoices } from '../../db/trash/restore';
import { invoiceOutput } from './invoice.schema';

export const invoicesGetDeleted = getDeletedProcedure({
  name: 'invoices.getDeleted',
  scope: 'invoices.read',
  plural: 'invoices',
  output: invoiceOutput,
  list: listDeletedInvoices,
});
