import type { Knex } from 'knex';
import type { Db } from '../knex';
import type { PageRequest } from '../pagination';
import { TABLES } from '../tables';
import * as leads from '../leads';
import * as contacts from '../contacts';
import * as clients from '../clients';
import * as tasks from '../tasks';
import * as invoices from '../invoices';
import { addToCounts } from '../leads/counters';
import type { LeadRow } from '../leads/shape';
import { toLead } from '../leads/shape';
import { insertRows, listTrash, referencesOf, relink, takeFromTrash, type Reference, type Trashed, type TrashResource } from '.';

// Each resource's restore and trash list. A restore runs in the caller's transaction: it takes
// the trash row, checks what the record refers to, re-inserts its rows as stored, rebuilds what is
// derived from them (a lead's search copies, stored JSON and counters), re-makes the links its
// delete cleared where the other record still has none, and answers the record as getById does.
// A rule the restore would break is answered as `{ conflict }` (the procedure's 409, the
// transaction rolled back, the record still in the trash); a record not in the trash (never
// deleted, restored, past the retention) as undefined (404).

export type Restored<T> = { record: T } | { conflict: string } | undefined;

/** A record's links to others: its column, the table, the trash resource, and whether it may be null. */
interface Link {
  column: string;
  table: string;
  resource?: TrashResource;
  noun: string;
  required?: boolean;
}

const CONTACTS_GENERATED = ['search_text', 'phone_digits'];

/**
 * Checks the record's links and externalId; answers the conflict, or clears in `row` the optional
 * links whose record is gone for good (purged or erased, or a member removed), as a delete of that
 * record would have cleared them had this one been live.
 */
async function checkLinks(
  trx: Knex.Transaction,
  orgId: string,
  what: { noun: string; id: string; table: string; row: Record<string, unknown> },
  links: readonly Link[],
): Promise<string | undefined> {
  const present = links.filter((link) => typeof what.row[link.column] === 'string');
  const references: Reference[] = present.map((link) => ({ table: link.table, id: what.row[link.column] as string, resource: link.resource }));
  const externalId = typeof what.row.external_id === 'string' ? what.row.external_id : undefined;
  const { places, externalIdTaken } = await referencesOf(trx, orgId, references, externalId === undefined ? undefined : { table: what.table, value: externalId });
  const subject = `${what.noun} ${JSON.stringify(what.id)}`;
  for (const [i, link] of present.entries()) {
    const id = JSON.stringify(what.row[link.column]);
    if (places[i] === 'trash') return `${subject} refers to ${link.noun} ${id}, which is in the trash: restore the ${link.noun} first`;
    if (places[i] === 'gone' && link.required) return `${subject} refers to ${link.noun} ${id}, which no longer exists: it cannot be restored`;
    if (places[i] === 'gone') what.row[link.column] = null;
  }
  if (externalIdTaken) return `externalId ${JSON.stringify(externalId)} is now held by another ${what.noun}: change that one's externalId first`;
  return undefined;
}

/**
 * Takes the record's trash row and checks its row (a copy, where checkLinks clears what it must):
 * undefined when not in the trash, `{ conflict }` when a rule refuses, else the row to insert and
 * the trash row's other parts.
 */
async function takeChecked(
  trx: Knex.Transaction, orgId: string, what: { resource: TrashResource; table: string; id: string }, retentionDays: number, links: readonly Link[],
): Promise<{ conflict: string } | { row: Record<string, unknown>; trashed: Trashed } | undefined> {
  const trashed = await takeFromTrash(trx, orgId, what.resource, what.id, retentionDays);
  if (!trashed) return undefined;
  const row = { ...trashed.rows.row };
  const conflict = await checkLinks(trx, orgId, { noun: what.resource, id: what.id, table: what.table, row }, links);
  return conflict ? { conflict } : { row, trashed };
}

const LEAD_LINKS: readonly Link[] = [
  { column: 'contact_id', table: TABLES.contacts, resource: 'contact', noun: 'contact', required: true },
  { column: 'client_id', table: TABLES.clients, resource: 'client', noun: 'client' },
  { column: 'assigned_to_id', table: TABLES.orgMembers, noun: 'member' },
];

/**
 * Restores a lead: its row, its calls, its search copies of its contact as the contact now is,
 * its stored JSON, its counters, and the links its tasks lost.
 */
export async function restoreLead(trx: Knex.Transaction, orgId: string, id: string, retentionDays: number): Promise<Restored<leads.Lead>> {
  const taken = await takeChecked(trx, orgId, { resource: 'lead', table: TABLES.leads, id }, retentionDays, LEAD_LINKS);
  if (!taken || 'conflict' in taken) return taken;
  const { row, trashed } = taken;
  await insertRows(trx, TABLES.leads, [row]);
  await insertRows(trx, TABLES.leadCalls, (trashed.rows.calls ?? []) as Record<string, unknown>[]);
  // The contact may have changed while the lead was in the trash (its changes reach live leads only).
  await trx.raw(
    `update ${TABLES.leads} l set contact_search_lower = lower(contact_search_text(c.name, c.company, c.emails, c.phones)),
       contact_phone_digits = contact_phone_digits(c.phones)
     from ${TABLES.contacts} c where l.org_id = ? and l.id = ? and c.org_id = ? and c.id = l.contact_id`,
    [orgId, id, orgId],
  );
  await relink(trx, orgId, { table: TABLES.tasks, column: 'lead_id', to: id, ids: trashed.rows.unlinked.tasks });
  await leads.storeLeadJson(trx, orgId, { leadIds: [id] });
  const lead = (await leads.lockLead(trx, orgId, id))!;
  await addToCounts(trx, orgId, [{ status: lead.status, assignedToId: lead.assignedToId, n: 1 }]);
  return { record: lead };
}

/** Restores a contact, and its link from the clients its delete unlinked. */
export async function restoreContact(trx: Knex.Transaction, orgId: string, id: string, retentionDays: number): Promise<Restored<contacts.Contact>> {
  const taken = await takeChecked(trx, orgId, { resource: 'contact', table: TABLES.contacts, id }, retentionDays, []);
  if (!taken || 'conflict' in taken) return taken;
  const { row, trashed } = taken;
  await insertRows(trx, TABLES.contacts, [row], CONTACTS_GENERATED);
  await relink(trx, orgId, { table: TABLES.clients, column: 'contact_id', to: id, ids: trashed.rows.unlinked.clients });
  return { record: (await contacts.getById(trx, orgId, id))! };
}

/** Restores a client, and its link from the leads (their stored JSON too) and tasks its delete unlinked. */
export async function restoreClient(trx: Knex.Transaction, orgId: string, id: string, retentionDays: number): Promise<Restored<clients.Client>> {
  const taken = await takeChecked(trx, orgId, { resource: 'client', table: TABLES.clients, id }, retentionDays, [
    { column: 'contact_id', table: TABLES.contacts, resource: 'contact', noun: 'contact' },
  ]);
  if (!taken || 'conflict' in taken) return taken;
  const { row, trashed } = taken;
  await insertRows(trx, TABLES.clients, [row]);
  const relinkedLeads = await relink(trx, orgId, { table: TABLES.leads, column: 'client_id', to: id, ids: trashed.rows.unlinked.leads });
  if (relinkedLeads.length > 0) await leads.storeLeadJson(trx, orgId, { leadIds: relinkedLeads });
  await relink(trx, orgId, { table: TABLES.tasks, column: 'client_id', to: id, ids: trashed.rows.unlinked.tasks });
  return { record: (await clients.getById(trx, orgId, id))! };
}

const TASK_LINKS: readonly Link[] = [
  { column: 'lead_id', table: TABLES.leads, resource: 'lead', noun: 'lead' },
  { column: 'client_id', table: TABLES.clients, resource: 'client', noun: 'client' },
  { column: 'assigned_to_id', table: TABLES.orgMembers, noun: 'member' },
];

export async function restoreTask(trx: Knex.Transaction, orgId: string, id: string, retentionDays: number): Promise<Restored<tasks.Task>> {
  const taken = await takeChecked(trx, orgId, { resource: 'task', table: TABLES.tasks, id }, retentionDays, TASK_LINKS);
  if (!taken || 'conflict' in taken) return taken;
  await insertRows(trx, TABLES.tasks, [taken.row]);
  return { record: (await tasks.getById(trx, orgId, id))! };
}

/** Restores a draft invoice and its line items; its client must be live (an invoice always has one). */
export async function restoreInvoice(trx: Knex.Transaction, orgId: string, id: string, retentionDays: number): Promise<Restored<invoices.Invoice>> {
  const taken = await takeChecked(trx, orgId, { resource: 'invoice', table: TABLES.invoices, id }, retentionDays, [
    { column: 'client_id', table: TABLES.clients, resource: 'client', noun: 'client', required: true },
  ]);
  if (!taken || 'conflict' in taken) return taken;
  const { row, trashed } = taken;
  await insertRows(trx, TABLES.invoices, [row]);
  await insertRows(trx, TABLES.invoiceLineItems, (trashed.rows.items ?? []) as Record<string, unknown>[]);
  return { record: (await invoices.getById(trx, orgId, id))! };
}

type Listed<T> = { items: (T & { deletedAt: Date })[]; total: number };

type TrashRow<Row> = Row & { trash_deleted_at: Date; trash_rows: Trashed['rows'] };

async function listed<Row, T>(
  db: Db,
  orgId: string,
  resource: TrashResource,
  table: string,
  retentionDays: number,
  page: PageRequest,
  toItem: (row: TrashRow<Row>) => T,
): Promise<Listed<T>> {
  const { rows, total } = await listTrash<Row>(db, orgId, { resource, table, retentionDays, page });
  return { items: rows.map((row) => ({ ...toItem(row), deletedAt: row.trash_deleted_at })), total };
}

/** A page of trashed leads, newest first, each with its contact's person fields as they are now (as they were, should the contact be gone). */
export async function listDeletedLeads(db: Db, orgId: string, retentionDays: number, page: PageRequest): Promise<Listed<leads.Lead>> {
  const { rows, total } = await listTrash<LeadRow>(db, orgId, { resource: 'lead', table: TABLES.leads, retentionDays, page });
  const contactIds = [...new Set(rows.map((row) => row.contact_id))];
  const people = new Map<string, contacts.Contact>();
  if (contactIds.length > 0) {
    const live = await db(TABLES.contacts).select('id', 'name', 'phones', 'emails', 'company').where('org_id', orgId).whereIn('id', contactIds);
    for (const contact of live) people.set(contact.id, contact);
  }
  const items = rows.map((row) => {
    const person = people.get(row.contact_id) ?? (row.trash_rows.person as Pick<LeadRow, 'name' | 'phones' | 'emails' | 'company'>);
    const lead = toLead({ ...row, name: person.name, phones: person.phones, emails: person.emails, company: person.company });
    return { ...lead, deletedAt: row.trash_deleted_at };
  });
  return { items, total };
}

export const listDeletedContacts = (db: Db, orgId: string, retentionDays: number, page: PageRequest) =>
  listed<contacts.ContactRow, contacts.Contact>(db, orgId, 'contact', TABLES.contacts, retentionDays, page, contacts.toContact);

export const listDeletedClients = (db: Db, orgId: string, retentionDays: number, page: PageRequest) =>
  listed<clients.ClientRow, clients.Client>(db, orgId, 'client', TABLES.clients, retentionDays, page, clients.toClient);

export const listDeletedTasks = (db: Db, orgId: string, retentionDays: number, page: PageRequest) =>
  listed<tasks.TaskRow, tasks.Task>(db, orgId, 'task', TABLES.tasks, retentionDays, page, tasks.toTask);

export const listDeletedInvoices = (db: Db, orgId: string, retentionDays: number, page: PageRequest) =>
  listed<invoices.InvoiceRow, invoices.Invoice>(db, orgId, 'invoice', TABLES.invoices, retentionDays, page, (row) => {
    const items = ((row.trash_rows.items ?? []) as (invoices.ItemRow & { position: number })[]).sort((a, b) => a.position - b.position);
    return invoices.toInvoice(row, items);
  });
