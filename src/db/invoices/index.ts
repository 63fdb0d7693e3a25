import type { Knex } from 'knex';
import type { Db } from '../knex';
import { moveToTrash, type DeletedBy } from '../trash';
import { TABLES, NEXT_UPDATED_AT, WRITE_TIME } from '../tables';
import { paginate } from '../paginate';
import type { PageRequest } from '../pagination';
import { newId } from '../../domain/ids';
import { invoiceTotal, lineTotal } from '../../domain/money';
import type { InvoiceStatus } from '../../domain/invoice-status';

/** A line as the API returns it: money in integer minor units, its total computed here. */
export interface InvoiceItem {
  id: string;
  description: string;
  quantity: number;
  unitPrice: number;
  total: number;
}

export interface Invoice {
  id: string;
  clientId: string;
  currency: string;
  status: InvoiceStatus;
  /** A calendar day, as a Date at UTC midnight. */
  dueDate: Date;
  sentAt: Date | null;
  paidAt: Date | null;
  voidedAt: Date | null;
  items: InvoiceItem[];
  total: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface InvoiceItemFields {
  description: string;
  quantity: number;
  unitPrice: number;
}

export interface InvoiceFields {
  clientId: string;
  currency: string;
  /** Only its UTC calendar day is stored. */
  dueDate: Date;
}

/** The columns a status change writes; `'now'` is the database's clock at the write. */
export interface InvoiceStatusChange {
  status: InvoiceStatus;
  sentAt?: Date | 'now';
  paidAt?: Date | 'now';
  voidedAt?: Date | 'now';
}

export interface InvoiceListFilters {
  status?: InvoiceStatus;
  clientId?: string;
}

const INVOICE_COLUMNS = [
  'id', 'client_id', 'currency', 'status', 'due_date', 'sent_at', 'paid_at', 'voided_at', 'created_at', 'updated_at',
];
const ITEM_COLUMNS = ['id', 'invoice_id', 'description', 'quantity', 'unit_price'];

export interface InvoiceRow {
  id: string;
  client_id: string;
  currency: string;
  status: InvoiceStatus;
  /** 'YYYY-MM-DD': pg's date parser is set to leave it as text (src/db/knex.ts). */
  due_date: string;
  sent_at: Date | null;
  paid_at: Date | null;
  voided_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface ItemRow {
  id: string;
  invoice_id: string;
  description: string;
  quantity: number;
  /** bigint arrives as text; bounded by MONEY_LIMITS, so Number is exact. */
  unit_price: string;
}

function toItem(row: ItemRow): InvoiceItem {
  const line = { quantity: row.quantity, unitPrice: Number(row.unit_price) };
  return { id: row.id, description: row.description, ...line, total: lineTotal(line) };
}

export function toInvoice(row: InvoiceRow, itemRows: ItemRow[]): Invoice {
  const items = itemRows.map(toItem);
  return {
    id: row.id,
    clientId: row.client_id,
    currency: row.currency,
    status: row.status,
    dueDate: new Date(`${row.due_date}T00:00:00.000Z`),
    sentAt: row.sent_at,
    paidAt: row.paid_at,
    voidedAt: row.voided_at,
    items,
    total: invoiceTotal(items),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The UTC calendar day of a Date, as a `date` column takes it (never a Date, which pg would shift to local time). */
function toDateColumn(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The items of several invoices in one query, grouped by invoice, each group in position order. */
async function itemsOf(db: Db, orgId: string, invoiceIds: string[]): Promise<Map<string, ItemRow[]>> {
  const byInvoice = new Map<string, ItemRow[]>(invoiceIds.map((id) => [id, []]));
  if (invoiceIds.length === 0) return byInvoice;
  const rows: ItemRow[] = await db(TABLES.invoiceLineItems)
    .select(ITEM_COLUMNS)
    .where('org_id', orgId)
    .whereIn('invoice_id', invoiceIds)
    .orderBy([{ column: 'invoice_id' }, { column: 'position' }]);
  for (const row of rows) byInvoice.get(row.invoice_id)?.push(row);
  return byInvoice;
}

/** One page of invoices, newest first (ties by id), each with its items, and the exact total count. */
export async function list(
  db: Db,
  orgId: string,
  filters: InvoiceListFilters,
  page: PageRequest,
): Promise<{ invoices: Invoice[]; total: number }> {
  const { items: rows, total } = await paginate<InvoiceRow, InvoiceRow>({
    filtered: () => {
      const query = db(TABLES.invoices).where('org_id', orgId);
      if (filters.status) query.where('status', filters.status);
      if (filters.clientId) query.where('client_id', filters.clientId);
      return query;
    },
    select: INVOICE_COLUMNS,
    orderBy: 'created_at desc, id desc',
    page,
    toItem: (row) => row,
  });
  const items = await itemsOf(db, orgId, rows.map((row) => row.id));
  return { invoices: rows.map((row) => toInvoice(row, items.get(row.id) ?? [])), total };
}

export async function getById(db: Db, orgId: string, invoiceId: string): Promise<Invoice | undefined> {
  const row: InvoiceRow | undefined = await db(TABLES.invoices).select(INVOICE_COLUMNS).where({ org_id: orgId, id: invoiceId }).first();
  if (!row) return undefined;
  const items = await itemsOf(db, orgId, [invoiceId]);
  return toInvoice(row, items.get(invoiceId) ?? []);
}

/** Locks the invoice row for the rest of the transaction; answers what a change must check. */
export async function lockForUpdate(
  db: Db,
  orgId: string,
  invoiceId: string,
): Promise<{ status: InvoiceStatus; updatedAt: Date } | undefined> {
  const row = await db(TABLES.invoices).select('status', 'updated_at').where({ org_id: orgId, id: invoiceId }).forUpdate().first();
  return row ? { status: row.status, updatedAt: row.updated_at } : undefined;
}

/** Inserts a DRAFT invoice (its items go in with `replaceItems`); answers its id. */
export async function insert(db: Db, orgId: string, fields: InvoiceFields): Promise<string> {
  const id = newId('inv');
  await db(TABLES.invoices).insert({ org_id: orgId, id, status: 'DRAFT', ...toColumns(fields) });
  return id;
}

export async function update(db: Db, orgId: string, invoiceId: string, patch: Partial<InvoiceFields>): Promise<void> {
  await db(TABLES.invoices)
    .where({ org_id: orgId, id: invoiceId })
    .update({ ...toColumns(patch), updated_at: db.raw(NEXT_UPDATED_AT) });
}

export async function changeStatus(db: Db, orgId: string, invoiceId: string, change: InvoiceStatusChange): Promise<void> {
  const at = (value: Date | 'now') => (value === 'now' ? db.raw(WRITE_TIME) : value);
  const columns: Record<string, unknown> = { status: change.status, updated_at: db.raw(NEXT_UPDATED_AT) };
  if (change.sentAt !== undefined) columns.sent_at = at(change.sentAt);
  if (change.paidAt !== undefined) columns.paid_at = at(change.paidAt);
  if (change.voidedAt !== undefined) columns.voided_at = at(change.voidedAt);
  await db(TABLES.invoices).where({ org_id: orgId, id: invoiceId }).update(columns);
}

/** Replaces every item of the invoice with these, in this order. */
export async function replaceItems(db: Db, orgId: string, invoiceId: string, items: InvoiceItemFields[]): Promise<void> {
  await db(TABLES.invoiceLineItems).where({ org_id: orgId, invoice_id: invoiceId }).delete();
  if (items.length === 0) return;
  await db(TABLES.invoiceLineItems).insert(
    items.map((item, position) => ({
      org_id: orgId,
      id: newId('line'),
      invoice_id: invoiceId,
      position,
      description: item.description,
      quantity: item.quantity,
      unit_price: item.unitPrice,
    })),
  );
}

/** Deletes the invoice (its items go with it, by the foreign key's cascade); false when there was none. */
/** Moves the invoice and its line items (cascaded) into the trash (src/db/trash), in one statement. */
export async function remove(trx: Knex.Transaction, orgId: string, invoiceId: string, deletedBy: DeletedBy): Promise<boolean> {
  const row = await moveToTrash<{ id: string }>(trx, orgId, {
    resource: 'invoice', table: TABLES.invoices, id: invoiceId, deletedBy, contactOf: 'null',
    dependents: [{ key: 'items', table: TABLES.invoiceLineItems, column: 'invoice_id' }], answer: 't.id',
  });
  return row !== undefined;
}

function toColumns(fields: Partial<InvoiceFields>): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  if (fields.clientId !== undefined) columns.client_id = fields.clientId;
  if (fields.currency !== undefined) columns.currency = fields.currency;
  if (fields.dueDate !== undefined) columns.due_date = toDateColumn(fields.dueDate);
  return columns;
}
