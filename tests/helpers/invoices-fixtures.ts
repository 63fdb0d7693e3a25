import type { Db } from '../../src/db/knex';
import * as invoicesQueries from '../../src/db/invoices';
import type { InvoiceItemFields } from '../../src/db/invoices';
import type { InvoiceStatus } from '../../src/domain/invoice-status';
import { newId } from '../../src/domain/ids';
import { unique } from './factories';

/** The fields of the Invoice object and of its items, sorted. */
export const INVOICE_FIELDS = [
  'clientId', 'createdAt', 'currency', 'dueDate', 'id', 'items', 'paidAt', 'sentAt', 'status', 'total', 'updatedAt', 'voidedAt',
] as const;
export const ITEM_FIELDS = ['description', 'id', 'quantity', 'total', 'unitPrice'] as const;

export const LONG_AGO = new Date('2020-01-01T00:00:00.000Z');

/** A client written straight into its table, so these tests do not depend on the clients procedures. */
export async function createClient(db: Db, orgId: string, name = unique('Client')): Promise<{ id: string; name: string }> {
  const id = newId('cli');
  await db('clients').insert({ org_id: orgId, id, name });
  return { id, name };
}

export interface InvoiceOverrides {
  clientId?: string;
  currency?: string;
  dueDate?: Date;
  items?: InvoiceItemFields[];
  status?: InvoiceStatus;
}

/**
 * An invoice written through the query module, put straight into the given status (with the
 * timestamps that status implies) and its updated_at moved into the past, so a change visibly
 * advances it.
 */
export async function createInvoice(db: Db, orgId: string, overrides: InvoiceOverrides = {}) {
  const clientId = overrides.clientId ?? (await createClient(db, orgId)).id;
  const id = await invoicesQueries.insert(db, orgId, {
    clientId,
    currency: overrides.currency ?? 'GBP',
    dueDate: overrides.dueDate ?? new Date('2030-01-31T00:00:00.000Z'),
  });
  await invoicesQueries.replaceItems(db, orgId, id, overrides.items ?? [
    { description: 'Consulting', quantity: 3, unitPrice: 1999 },
    { description: 'Stamp', quantity: 1, unitPrice: 1 },
  ]);
  const status = overrides.status ?? 'DRAFT';
  const at = new Date('2021-06-01T12:00:00.000Z');
  await db('invoices').where({ org_id: orgId, id }).update({
    status,
    sent_at: status === 'DRAFT' ? null : at,
    paid_at: status === 'PAID' ? at : null,
    voided_at: status === 'VOID' ? at : null,
    updated_at: LONG_AGO,
  });
  return (await invoicesQueries.getById(db, orgId, id))!;
}

/** The invoice row and its item rows, to compare before and after a refused call. */
export async function invoiceSnapshot(db: Db, orgId: string, id: string) {
  const invoice = await db('invoices').where({ org_id: orgId, id }).first();
  const items = await db('invoice_line_items').where({ org_id: orgId, invoice_id: id }).orderBy('position');
  return { invoice, items };
}

export async function countInvoiceRows(db: Db, orgId: string): Promise<{ invoices: number; items: number }> {
  const [invoices, items] = await Promise.all([
    db('invoices').where({ org_id: orgId }).count({ n: '*' }).first(),
    db('invoice_line_items').where({ org_id: orgId }).count({ n: '*' }).first(),
  ]);
  return { invoices: Number(invoices?.n), items: Number(items?.n) };
}
