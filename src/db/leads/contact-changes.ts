import type { Knex } from 'knex';
import { TABLES } from '../tables';
import * as contacts from '../contacts';
import { storeLeadJson } from './lead-json';

// A change to a contact's person fields reaches its leads: each keeps copies of its contact's
// search text (leads.contact_search_lower and contact_phone_digits, computed by the same SQL
// functions as the contact's own columns, migration 20261123150100) and renders it in its stored
// JSON. `updateContact` is that change on its own (contacts.update); a lead's change that carries
// person fields (writes.ts, `updateLead`) sets its own copies with `copiesFrom` and the other
// leads' with `copyContactSearch`.

/** A contact's person fields; each given one replaces the stored value. */
export type PersonChange = Partial<contacts.ContactFields>;

/**
 * Changes a contact's person fields and so its leads' search copies and JSON (their own fields
 * and `updatedAt` stay); answers the contact as it now is, or undefined when there is no such
 * contact. Statements: the contact, its leads' copies, their JSON.
 */
export async function updateContact(
  trx: Knex.Transaction,
  orgId: string,
  contactId: string,
  person: PersonChange,
  own: contacts.ContactOwnFields = {},
): Promise<{ contact: contacts.Contact } | undefined> {
  // The contact's own fields (its external id) are not its leads': only a person change reaches them.
  const contact = await contacts.update(trx, orgId, contactId, { ...person, ...own });
  if (!contact) return undefined;
  if (hasAny(person)) {
    await copyContactSearch(trx, orgId, contact);
    await storeLeadJson(trx, orgId, { contactId });
  }
  return { contact };
}

/** Every lead of the contact takes its (new) search text. */
export async function copyContactSearch(trx: Knex.Transaction, orgId: string, contact: contacts.Contact): Promise<void> {
  await trx(TABLES.leads).where({ org_id: orgId, contact_id: contact.id }).update({
    contact_search_lower: trx.raw('lower(contact_search_text(?, ?, ?::text[], ?::text[]))', [contact.name, contact.company, contact.emails, contact.phones]),
    contact_phone_digits: trx.raw('contact_phone_digits(?::text[])', [contact.phones]),
  });
}

/**
 * SET clauses for a lead's copies of its contact's search text after a person change: each
 * argument the given value, or the stored one (`c`, the contact joined); bound in text order.
 */
export function copiesFrom(person: PersonChange): { sql: string; bound: Knex.Value[] } {
  const argument = (key: keyof contacts.ContactFields, cast = '') => (person[key] === undefined
    ? { sql: `c.${key}`, bound: [] }
    : { sql: `?${cast}`, bound: [person[key] as Knex.Value] });
  const args = [argument('name'), argument('company'), argument('emails', '::text[]'), argument('phones', '::text[]')];
  const phones = args[3]!;
  return {
    sql: `contact_search_lower = lower(contact_search_text(${args.map((a) => a.sql).join(', ')})), contact_phone_digits = contact_phone_digits(${phones.sql})`,
    bound: [...args.flatMap((a) => a.bound), ...phones.bound],
  };
}

export function hasAny(patch: object): boolean {
  return Object.values(patch).some((value) => value !== undefined);
}
