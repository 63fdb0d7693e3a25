import type { Db } from '../../src/db/knex';
import * as contacts from '../../src/db/contacts';
import * as leads from '../../src/db/leads';
import * as clientsQueries from '../../src/db/clients';
import type { ClientFields } from '../../src/db/clients';
import type { ContactFields } from '../../src/db/contacts';
import { newId } from '../../src/domain/ids';
import { unique } from './factories';

/** The 9 fields of a Contact and of a Client as the API answers them, sorted. */
export const CONTACT_FIELDS = ['company', 'createdAt', 'emails', 'externalId', 'id', 'name', 'phones', 'primaryEmail', 'primaryPhone', 'updatedAt'] as const;
export const CLIENT_FIELDS = ['company', 'contactId', 'createdAt', 'email', 'externalId', 'id', 'name', 'notes', 'phone', 'updatedAt'] as const;

/** Old enough that any write visibly advances updated_at. */
export const LONG_AGO = new Date('2020-01-01T00:00:00.000Z');

/** A contact written through the query module (values stored as given), created and last updated at `at`. */
export async function createContact(db: Db, orgId: string, overrides: Partial<ContactFields> = {}, at = LONG_AGO) {
  const { id } = await contacts.insert(db, orgId, {
    name: overrides.name ?? unique('Contact'),
    phones: overrides.phones ?? ['+442079460000'],
    emails: overrides.emails ?? [],
    company: overrides.company ?? null,
  });
  await db('contacts').where({ org_id: orgId, id }).update({ created_at: at, updated_at: at });
  return (await contacts.getById(db, orgId, id))!;
}

/** A client written through the query module (values stored as given), created and last updated at `at`. */
export async function createClient(db: Db, orgId: string, overrides: Partial<ClientFields> = {}, at = LONG_AGO) {
  const client = await clientsQueries.insert(db, orgId, {
    name: overrides.name ?? unique('Client'),
    contactId: overrides.contactId ?? null,
    company: overrides.company ?? null,
    email: overrides.email ?? null,
    phone: overrides.phone ?? null,
    notes: overrides.notes ?? null,
  });
  await db('clients').where({ org_id: orgId, id: client.id }).update({ created_at: at, updated_at: at });
  return (await clientsQueries.getById(db, orgId, client.id))!;
}

/** An invoice row written straight to its table (only its existence matters to clients.delete). */
export async function createInvoiceRow(db: Db, orgId: string, clientId: string, status = 'DRAFT'): Promise<string> {
  const id = newId('inv');
  await db('invoices').insert({ org_id: orgId, id, client_id: clientId, currency: 'GBP', status, due_date: '2030-01-31' });
  return id;
}

/** A lead of an existing contact, written through the leads' data module. */
export async function createLeadFor(db: Db, orgId: string, contactId: string, clientId: string | null = null): Promise<string> {
  const [id] = await db.transaction((trx) => leads.insertLeads(trx, orgId, [{
    contactId, clientId, status: 'NOT_CONTACTED', source: null, notes: null, nextCallAt: null, assignedToId: null,
  }]));
  return id!;
}

export function storedContact(db: Db, orgId: string, id: string) {
  return db('contacts').where({ org_id: orgId, id }).first();
}

export function storedClient(db: Db, orgId: string, id: string) {
  return db('clients').where({ org_id: orgId, id }).first();
}

export async function countRows(db: Db, table: 'contacts' | 'clients', orgId: string): Promise<number> {
  const row = await db(table).where({ org_id: orgId }).count({ n: '*' }).first();
  return Number(row?.n);
}
