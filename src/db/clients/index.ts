import type { Knex } from 'knex';
import type { Db } from '../knex';
import * as leads from '../leads';
import type { SearchTerm } from '../contact-search';
import * as tasks from '../tasks';
import { TABLES, NEXT_UPDATED_AT } from '../tables';
import { moveToTrash, type DeletedBy } from '../trash';
import { paginate } from '../paginate';
import { containsPattern, type PageRequest } from '../pagination';
import { newId } from '../../domain/ids';

/** A client (a customer the workspace bills), as the API returns it. */
export interface Client {
  id: string;
  name: string;
  contactId: string | null;
  company: string | null;
  email: string | null;
  phone: string | null;
  notes: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** The caller's own id for the client, unique in the workspace; null when unset. */
  externalId: string | null;
}

export interface ClientFields {
  name: string;
  contactId: string | null;
  company: string | null;
  email: string | null;
  phone: string | null;
  notes: string | null;
  /** Absent on an insert: none; on an update: unchanged. */
  externalId?: string | null;
}

export interface ClientListFilters {
  /** Matched case-insensitively against name, company, email and phone; phoneDigits also against the phone's digits. */
  search?: SearchTerm;
  /** Exactly this external id (at most one client holds it). */
  externalId?: string;
}

export const CLIENT_COLUMNS = ['id', 'name', 'contact_id', 'company', 'email', 'phone', 'notes', 'created_at', 'updated_at', 'external_id'];

export interface ClientRow {
  id: string;
  name: string;
  contact_id: string | null;
  company: string | null;
  email: string | null;
  phone: string | null;
  notes: string | null;
  created_at: Date;
  updated_at: Date;
  external_id: string | null;
}

export function toClient(row: ClientRow): Client {
  return {
    id: row.id,
    name: row.name,
    contactId: row.contact_id,
    company: row.company,
    email: row.email,
    phone: row.phone,
    notes: row.notes,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    externalId: row.external_id,
  };
}

/** Inserts a client whose email and phone are already normalised. */
export async function insert(db: Db, orgId: string, fields: ClientFields): Promise<Client> {
  const [row] = await db(TABLES.clients)
    .insert({
      org_id: orgId,
      id: newId('cli'),
      name: fields.name,
      contact_id: fields.contactId,
      company: fields.company,
      email: fields.email,
      phone: fields.phone,
      notes: fields.notes,
      external_id: fields.externalId ?? null,
    })
    .returning(CLIENT_COLUMNS);
  return toClient(row as ClientRow);
}

export async function getById(db: Db, orgId: string, clientId: string): Promise<Client | undefined> {
  const row = await db(TABLES.clients).select(CLIENT_COLUMNS).where({ org_id: orgId, id: clientId }).first();
  return row ? toClient(row as ClientRow) : undefined;
}

function filtered(db: Db, orgId: string, filters: ClientListFilters) {
  const query = db(TABLES.clients).where('org_id', orgId);
  if (filters.externalId !== undefined) query.where('external_id', filters.externalId);
  if (filters.search) {
    const { text, phoneDigits } = filters.search;
    const pattern = containsPattern(text);
    query.where((q) => {
      q.whereILike('name', pattern).orWhereILike('company', pattern).orWhereILike('email', pattern).orWhereILike('phone', pattern);
      for (const digits of phoneDigits) q.orWhere('phone', 'like', containsPattern(digits));
    });
  }
  return query;
}

/** One page of clients, newest first (then id), and the exact total. */
export async function list(
  db: Db,
  orgId: string,
  filters: ClientListFilters,
  page: PageRequest,
): Promise<{ clients: Client[]; total: number }> {
  const { items, total } = await paginate<ClientRow, Client>({
    filtered: () => filtered(db, orgId, filters),
    select: CLIENT_COLUMNS,
    orderBy: 'created_at desc, id desc',
    page,
    toItem: toClient,
  });
  return { clients: items, total };
}

/**
 * Locks the client row for the rest of the transaction (a new invoice for it waits on the lock);
 * answers it as it is, which an update checks (its `updatedAt`) and records as the history's
 * `from` (src/events/history.ts).
 */
export async function lockForUpdate(db: Db, orgId: string, clientId: string): Promise<Client | undefined> {
  const row = await db(TABLES.clients).select(CLIENT_COLUMNS).where({ org_id: orgId, id: clientId }).forUpdate().first();
  return row ? toClient(row as ClientRow) : undefined;
}

/** Writes the fields given (undefined means unchanged) and answers the client as stored. */
export async function update(db: Db, orgId: string, clientId: string, patch: Partial<ClientFields>): Promise<Client | undefined> {
  const [row] = await db(TABLES.clients)
    .where({ org_id: orgId, id: clientId })
    .update({ ...toColumns(patch), updated_at: db.raw(NEXT_UPDATED_AT) })
    .returning(CLIENT_COLUMNS);
  return row ? toClient(row as ClientRow) : undefined;
}

/** Whether the client has any invoice, whatever its status (invoices keep their client: it may not be deleted). */
export async function hasInvoices(db: Db, orgId: string, clientId: string): Promise<boolean> {
  const row = await db(TABLES.invoices).select('id').where({ org_id: orgId, client_id: clientId }).first();
  return row !== undefined;
}

/**
 * Deletes the client; answers false when there was no such client in the workspace. Its leads
 * and tasks lose the link first (leads through their own module, which keeps their counters and
 * stored JSON right), in the caller's transaction.
 */
export async function remove(trx: Knex.Transaction, orgId: string, clientId: string, deletedBy: DeletedBy): Promise<boolean> {
  const unlinkedLeads = await leads.unlinkClient(trx, orgId, clientId);
  const unlinkedTasks = await tasks.clearClient(trx, orgId, clientId);
  // Into the trash (src/db/trash), with the leads and tasks it was unlinked from, for a restore to link again.
  const row = await moveToTrash<{ id: string }>(trx, orgId, {
    resource: 'client', table: TABLES.clients, id: clientId, deletedBy, contactOf: 't.contact_id',
    unlinked: { leads: unlinkedLeads, tasks: unlinkedTasks }, answer: 't.id',
  });
  return row !== undefined;
}

function toColumns(fields: Partial<ClientFields>): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  if (fields.name !== undefined) columns.name = fields.name;
  if (fields.contactId !== undefined) columns.contact_id = fields.contactId;
  if (fields.company !== undefined) columns.company = fields.company;
  if (fields.email !== undefined) columns.email = fields.email;
  if (fields.phone !== undefined) columns.phone = fields.phone;
  if (fields.notes !== undefined) columns.notes = fields.notes;
  if (fields.externalId !== undefined) columns.external_id = fields.externalId;
  return columns;
}
