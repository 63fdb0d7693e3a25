import type { Knex } from 'knex';
import { TABLES } from '../tables';
import { insertFirstEventsInBulk, type NewEvent } from '../events';
import type * as contacts from '../contacts';
import { addToCounts } from './counters';
import type { Lead } from './shape';

// Many new leads at once (an import's batch, src/imports): each lead and its contact as newLead
// made them, written as createLead writes one (the same columns, search copies, stored JSON,
// counters, and the events the caller built with their webhook deliveries), a few statements for
// the whole batch instead of one statement per lead. The caller's transaction holds them all:
// the batch is written whole or not at all.

/**
 * Writes `created` (from newLead) and `events` (contact.created and lead.created of each, built by
 * the caller) in the caller's transaction. Three statements whatever the batch's size (four with
 * deliveries): contacts, leads (with their copies of the contact's search text) and lead_json as
 * one statement's CTEs (each naming the workspace: one shard group on Citus), then lead_counts
 * (summed per group), then the events and (when the workspace has an enabled endpoint) their deliveries.
 * A lead whose external id another holds, or whose assignee is gone, fails the statement (23505,
 * 23503): the caller then writes the batch lead by lead.
 */
export async function createLeadsInBulk(
  trx: Knex.Transaction,
  orgId: string,
  created: readonly { contact: contacts.Contact; lead: Lead }[],
  events: readonly NewEvent[],
): Promise<void> {
  if (created.length === 0) return;
  const rows = JSON.stringify(created.map(({ lead }) => ({
    lead: lead.id, contact: lead.contactId, name: lead.name, phones: lead.phones, emails: lead.emails, company: lead.company,
    status: lead.status, source: lead.source, notes: lead.notes, next_call_at: lead.nextCallAt, assignee: lead.assignedToId,
    external_id: lead.externalId, now: lead.createdAt,
  })));
  const bindings = { org: orgId, rows };
  await trx.raw(BULK_ROWS, bindings);
  await addToCounts(trx, orgId, created.map(({ lead }) => ({ status: lead.status, assignedToId: lead.assignedToId, n: 1 })));
  await insertFirstEventsInBulk(trx, events);
}

/** The batch's leads as rows, from the bound JSON array `:rows`. */
const RECORDS = `jsonb_to_recordset(:rows::jsonb) as r(lead text, contact text, name text, phones text[], emails text[], company text,
  status text, source text, notes text, next_call_at timestamptz, assignee text, external_id text, now timestamptz)`;

/** The contacts, leads and lead_json rows in one statement: the batch's JSON is sent and read once, not once a table. */
const BULK_ROWS = `with records as materialized (select * from ${RECORDS}), contacts as (
    insert into ${TABLES.contacts} (org_id, id, name, phones, emails, company, created_at, updated_at)
    select :org, r.contact, r.name, r.phones, r.emails, r.company, r.now, r.now from records r
  ), leads as (
    insert into ${TABLES.leads} (org_id, id, contact_id, status, source, notes, next_call_at, assigned_to_id, client_id,
      created_at, updated_at, contact_search_lower, contact_phone_digits, external_id)
    select :org, r.lead, r.contact, r.status, r.source, r.notes, r.next_call_at, r.assignee, null, r.now, r.now,
      lower(contact_search_text(r.name, r.company, r.emails, r.phones)), contact_phone_digits(r.phones), r.external_id
    from records r order by r.lead
  )
  insert into ${TABLES.leadJson} (org_id, lead_id, json)
  select :org, r.lead, render_lead_json(r.lead, r.contact, r.status, r.source, r.notes, r.next_call_at, r.now, r.now,
    r.assignee, null, r.name, r.phones, r.emails, r.company, r.external_id)
  from records r order by r.lead`;
