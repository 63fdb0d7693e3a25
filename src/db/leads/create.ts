import type { Knex } from 'knex';
import type { Db } from '../knex';
import { TABLES } from '../tables';
import type * as contacts from '../contacts';
import { firstEventsCtes, type NewEvent } from '../events';
import { newId } from '../../domain/ids';
import { addToCounts, COUNT_DELTA_INSERT } from './counters';
import { prepared } from '../prepared-statements';
import { storeLeadJson } from './lead-json';
import { toLead, type Lead, type LeadFields } from './shape';

// New leads: one with its contact (`newLead`, then `createLead`: one statement), and many about
// existing contacts (`insertLeads`: demo data, fixtures). What else each writes is in writes.ts's
// header: counters, search copies, stored JSON.

/**
 * A new lead and its contact as `createLead` writes them: new ids, and this process's clock as
 * their times (to the millisecond, as stored), so that the caller can build the events of the
 * create from them (src/events/lead-events.ts) before the statement runs.
 */
export function newLead(person: contacts.ContactFields, fields: LeadFields): { contact: contacts.Contact; lead: Lead } {
  const ids = { contact: newId('con'), lead: newId('lead') };
  const now = new Date();
  const contact: contacts.Contact = {
    id: ids.contact, name: person.name, phones: [...person.phones], emails: [...person.emails],
    primaryPhone: person.phones[0] ?? null, primaryEmail: person.emails[0] ?? null, company: person.company,
    createdAt: now, updatedAt: new Date(now), externalId: null,
  };
  const lead = toLead({
    id: ids.lead, contact_id: ids.contact, status: fields.status, source: fields.source, notes: fields.notes, next_call_at: fields.nextCallAt,
    assigned_to_id: fields.assignedToId, client_id: fields.clientId, external_id: fields.externalId ?? null,
    // Dates and lists of their own: one object at two paths would be written as a superjson referential equality.
    created_at: new Date(now), updated_at: new Date(now),
    name: person.name, phones: [...person.phones], emails: [...person.emails], company: person.company,
  });
  return { contact, lead };
}

/**
 * Writes a lead made by `newLead` and its contact, in one statement: the contact, the lead (with
 * its copies of the contact's search text), its stored JSON, its counter row and `events` (built
 * by the caller: `contact.created`, `lead.created`) with their webhook deliveries, each a
 * data-modifying CTE naming the workspace (on Citus each runs as a task in the workspace's shard
 * group, and the statement commits in one phase). The events go in through src/db/events's one
 * helper, as its CTEs (`firstEventsCtes`: each is its object's first event). One statement is
 * atomic by itself, so it needs no transaction of its own (`db` may be one: an idempotent call's):
 * one round trip where it was nine with BEGIN and COMMIT, and on these machines a round trip is
 * most of a write's server CPU and much of PostgreSQL's. Without events (test fixtures) none is
 * recorded.
 */
export async function createLead(db: Db, orgId: string, lead: Lead, events: readonly NewEvent[] = []): Promise<void> {
  const recorded = events.length > 0 ? firstEventsCtes(events) : undefined;
  await prepared(db, db.raw(recorded ? `${CREATE_LEAD_ROWS}, ${recorded.sql} select 1` : CREATE_LEAD, { ...bindingsOf(orgId, lead), ...recorded?.bindings }));
}

/** A new lead's values as the named bindings of its statements (`:now` its times). */
export function bindingsOf(orgId: string, lead: Lead): Record<string, Knex.Value> {
  return {
    org: orgId, contact: lead.contactId, lead: lead.id, now: lead.createdAt,
    name: lead.name, phones: lead.phones, emails: lead.emails, company: lead.company,
    status: lead.status, source: lead.source, notes: lead.notes, nextCallAt: lead.nextCallAt,
    assignee: lead.assignedToId, client: lead.clientId, assigneeKey: lead.assignedToId ?? '', externalId: lead.externalId,
  };
}

/** The lead's stored JSON, from the bound values (render_lead_json's arguments in order). */
export const RENDERED = renderedFrom(':now', ':now');

/** render_lead_json of bound values, with these times (bindings) as the lead's createdAt and updatedAt. */
export function renderedFrom(createdAt: string, updatedAt: string): string {
  return `render_lead_json(:lead, :contact, :status, :source, :notes, :nextCallAt::timestamptz, ${createdAt}::timestamptz, ${updatedAt}::timestamptz,
      :assignee, :client, :name, :phones::text[], :emails::text[], :company, :externalId)`;
}

export const LEAD_INSERT = `insert into ${TABLES.leads} (org_id, id, contact_id, status, source, notes, next_call_at, assigned_to_id, client_id,
      created_at, updated_at, contact_search_lower, contact_phone_digits, external_id)
    values (:org, :lead, :contact, :status, :source, :notes, :nextCallAt::timestamptz, :assignee, :client, :now, :now,
      lower(contact_search_text(:name, :company, :emails::text[], :phones::text[])), contact_phone_digits(:phones::text[]), :externalId)`;

const CREATE_LEAD_ROWS = `
  with contact as (
    insert into ${TABLES.contacts} (org_id, id, name, phones, emails, company, created_at, updated_at)
    values (:org, :contact, :name, :phones::text[], :emails::text[], :company, :now, :now)
  ), lead as (
    ${LEAD_INSERT}
  ), json as (
    insert into ${TABLES.leadJson} (org_id, lead_id, json) values (:org, :lead, ${RENDERED})
  ), counts as (
    ${COUNT_DELTA_INSERT}
  )`;
const CREATE_LEAD = `${CREATE_LEAD_ROWS} select 1`;

/** A lead to insert in bulk: its contact (inserted before), its own fields, and (demo data, tests) any of its id and times. */
export interface NewLead extends LeadFields {
  contactId: string;
  id?: string;
  /** Each is the transaction's `now()` when absent. */
  createdAt?: Date;
  updatedAt?: Date;
  convertedAt?: Date | null;
}

/**
 * Inserts leads about existing contacts in one statement (demo data, fixtures), each with its
 * copies of its contact's search text read from the contact, then their counters and stored JSON,
 * as `createLead` does for one. Answers their ids.
 */
export async function insertLeads(trx: Knex.Transaction, orgId: string, leads: readonly NewLead[]): Promise<string[]> {
  const rows = leads.map((lead) => ({
    id: lead.id ?? newId('lead'), contact_id: lead.contactId, status: lead.status, source: lead.source, notes: lead.notes,
    next_call_at: lead.nextCallAt, assigned_to_id: lead.assignedToId, client_id: lead.clientId, converted_at: lead.convertedAt ?? null,
    created_at: lead.createdAt ?? null, updated_at: lead.updatedAt ?? null, external_id: lead.externalId ?? null,
  }));
  const { rowCount } = await trx.raw(
    `insert into ${TABLES.leads} (org_id, id, contact_id, status, source, notes, next_call_at, assigned_to_id, client_id, converted_at,
       created_at, updated_at, contact_search_lower, contact_phone_digits, external_id)
     select c.org_id, r.id, c.id, r.status, r.source, r.notes, r.next_call_at, r.assigned_to_id, r.client_id, r.converted_at,
       coalesce(r.created_at, now()), coalesce(r.updated_at, now()), lower(c.search_text), c.phone_digits, r.external_id
     from jsonb_to_recordset(?::jsonb) as r(id text, contact_id text, status text, source text, notes text, next_call_at timestamptz,
       assigned_to_id text, client_id text, converted_at timestamptz, created_at timestamptz, updated_at timestamptz, external_id text)
     -- Each contact by its key (OFFSET 0 keeps the lateral subquery from becoming a join): joined,
     -- a workspace newer than its statistics looked empty, and every insert read all its contacts.
     cross join lateral (
       select c.org_id, c.id, c.search_text, c.phone_digits from ${TABLES.contacts} c where c.org_id = ? and c.id = r.contact_id offset 0
     ) c
     order by r.id`,
    [JSON.stringify(rows), orgId],
  );
  if (rowCount !== rows.length) throw new Error(`a lead's contact is not in workspace ${orgId}`);
  const ids = rows.map((r) => r.id);
  await storeLeadJson(trx, orgId, { leadIds: ids });
  await addToCounts(trx, orgId, leads.map((lead) => ({ status: lead.status, assignedToId: lead.assignedToId, n: 1 })));
  return ids;
}
