import type { Knex } from 'knex';
import type { Db } from '../knex';
import { TABLES, NEXT_UPDATED_AT } from '../tables';
import { moveToTrash, type DeletedBy } from '../trash';
import { contactRow, whereContactMatches, type SearchTerm } from '../contact-search';
import { paginate } from '../paginate';
import type { PageRequest } from '../pagination';
import { newId } from '../../domain/ids';

// The contacts' rows. What each write also changes, in the caller's transaction (no triggers;
// events are recorded by the procedures):
// - insert: nothing else (contacts.search_text and phone_digits are generated columns).
// - update: the contact alone. Its leads keep copies of its person fields (search text, stored
//   JSON): a change that reaches them goes through the leads' write unit (src/db/leads/,
//   contact-changes.ts `updateContact` and writes.ts `updateLead`), which calls this.
// - remove: clients linked to the contact lose the link first (clients.contact_id = null).

/** A contact (the person behind leads and clients), as the API returns it. */
export interface Contact {
  id: string;
  name: string;
  phones: string[];
  emails: string[];
  primaryPhone: string | null;
  primaryEmail: string | null;
  company: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** The caller's own id for the contact, unique in the workspace; null when unset. */
  externalId: string | null;
}

/** The contact's own field beside its person fields: absent on an insert means none, on an update unchanged. */
export interface ContactOwnFields {
  externalId?: string | null;
}

export interface ContactFields {
  name: string;
  phones: string[];
  emails: string[];
  company: string | null;
}

export interface ContactListFilters {
  /** Matched case-insensitively against name, emails, phones and company; phoneDigits also against the phones' digits. */
  search?: SearchTerm;
  /** Exactly this external id (at most one contact holds it). */
  externalId?: string;
}

const COLUMNS = ['id', 'name', 'phones', 'emails', 'company', 'created_at', 'updated_at', 'external_id'];

export interface ContactRow {
  id: string;
  name: string;
  phones: string[];
  emails: string[];
  company: string | null;
  created_at: Date;
  updated_at: Date;
  external_id: string | null;
}

/** A contact's person fields as the API answers them: the primary phone and email are the first of each, or null (as a lead's: src/db/leads/shape.ts). */
function personFieldsOf(row: { name: string; phones: string[]; emails: string[]; company: string | null }) {
  return {
    name: row.name,
    phones: row.phones,
    emails: row.emails,
    primaryPhone: row.phones[0] ?? null,
    primaryEmail: row.emails[0] ?? null,
    company: row.company,
  };
}

export function toContact(row: ContactRow): Contact {
  return {
    id: row.id,
    ...personFieldsOf(row),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    externalId: row.external_id,
  };
}

function filtered(db: Db, orgId: string, filters: ContactListFilters) {
  const query = db(TABLES.contacts).where('org_id', orgId);
  if (filters.externalId !== undefined) query.where('external_id', filters.externalId);
  if (filters.search) whereContactMatches(query, filters.search, contactRow(''));
  return query;
}

/** One page of contacts, newest first (then id), and the exact total. */
export async function list(
  db: Db,
  orgId: string,
  filters: ContactListFilters,
  page: PageRequest,
): Promise<{ contacts: Contact[]; total: number }> {
  const { items, total } = await paginate<ContactRow, Contact>({
    filtered: () => filtered(db, orgId, filters),
    select: COLUMNS,
    orderBy: 'created_at desc, id desc',
    page,
    toItem: toContact,
  });
  return { contacts: items, total };
}

export async function getById(db: Db, orgId: string, contactId: string): Promise<Contact | undefined> {
  const row = await db(TABLES.contacts).select(COLUMNS).where({ org_id: orgId, id: contactId }).first();
  return row ? toContact(row as ContactRow) : undefined;
}

/**
 * Locks the contact row for the rest of the transaction (a row referencing it, such as a new
 * lead or client, waits for it); answers it as it is, which an update checks (its `updatedAt`)
 * and records as the history's `from` (src/events/history.ts).
 */
export async function lockForUpdate(trx: Knex.Transaction, orgId: string, contactId: string): Promise<Contact | undefined> {
  const row = await trx(TABLES.contacts).select(COLUMNS).where({ org_id: orgId, id: contactId }).forUpdate().first();
  return row ? toContact(row as ContactRow) : undefined;
}

/** Inserts a contact whose phones and emails are already normalised; answers it as stored. */
export async function insert(db: Db, orgId: string, fields: ContactFields & ContactOwnFields): Promise<Contact> {
  const [row] = await db(TABLES.contacts)
    .insert({
      org_id: orgId,
      id: newId('con'),
      name: fields.name,
      phones: fields.phones,
      emails: fields.emails,
      company: fields.company,
      external_id: fields.externalId ?? null,
    })
    .returning(COLUMNS);
  return toContact(row as ContactRow);
}

/**
 * Changes the given fields (absent ones stay) and answers the contact as it now is; undefined
 * when there is no such contact. Only the contact's row: its leads' copies are the write unit's.
 */
export async function update(
  trx: Knex.Transaction, orgId: string, contactId: string, patch: Partial<ContactFields> & ContactOwnFields,
): Promise<Contact | undefined> {
  const { externalId, ...person } = patch;
  const [row] = await trx(TABLES.contacts)
    .where({ org_id: orgId, id: contactId })
    .update({ ...withoutUndefined({ ...person, external_id: externalId }), updated_at: trx.raw(NEXT_UPDATED_AT) })
    .returning(COLUMNS);
  return row ? toContact(row as ContactRow) : undefined;
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Whether any lead of the workspace is about this contact (such a contact may not be deleted). */
export async function isUsedByLead(db: Db, orgId: string, contactId: string): Promise<boolean> {
  const row = await db(TABLES.leads).select('id').where({ org_id: orgId, contact_id: contactId }).first();
  return row !== undefined;
}

/**
 * Answers false when there was no such contact in the workspace. Clients linked to it keep their
 * own fields and lose the link; a lead's contact is never deleted (`isUsedByLead`, checked under
 * the contact's lock, and the leads' foreign key).
 */
export async function remove(trx: Knex.Transaction, orgId: string, contactId: string, deletedBy: DeletedBy): Promise<boolean> {
  const clients: { id: string }[] = await trx(TABLES.clients).where({ org_id: orgId, contact_id: contactId }).update({ contact_id: null }).returning(['id']);
  // Into the trash (src/db/trash), with the clients it was unlinked from, for a restore to link again.
  const row = await moveToTrash<{ id: string }>(trx, orgId, {
    resource: 'contact', table: TABLES.contacts, id: contactId, deletedBy, contactOf: 't.id',
    unlinked: { clients: clients.map((c) => c.id).sort() }, answer: 't.id',
  });
  return row !== undefined;
}
