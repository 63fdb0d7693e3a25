import type { Knex } from 'knex';
import { TABLES, nextUpdatedAtOf, WRITE_TIME } from '../tables';
import * as contacts from '../contacts';
import * as tasks from '../tasks';
import type { LeadStatus } from '../../domain/lead-status';
import { moveToTrash, type DeletedBy } from '../trash';
import { addToCounts, type CountDelta } from './counters';
import { storeLeadJson } from './lead-json';
import { copiesFrom, copyContactSearch, hasAny, type PersonChange } from './contact-changes';
import { LEAD_COLUMNS, leadsWithContacts, toLead, type Lead, type LeadFields, type LeadRow } from './shape';

// The one write path of leads and their contacts: this file changes and deletes leads, create.ts
// makes them, contact-changes.ts passes a contact's person fields to its leads. Every procedure
// that changes a lead, or a contact's person fields, comes through them; each function writes the
// rows, then refreshes every row derived from them, once, in the caller's transaction, and
// answers what changed (the rows before and after). Events are not decided here: the procedure
// turns that answer into event drafts (src/events/lead-events.ts) and records them
// (src/events/record-events.ts). What a lead's rows derive:
// - lead_counts: +1/-1 per (status, assignee) group a lead enters or leaves, in the writing
//   session's row of the group (counters.ts: updated in place, no vacuum needed);
// - the lead's copies of its contact's search text (leads.contact_search_lower and
//   contact_phone_digits), computed by the same SQL functions as the contact's own columns;
// - lead_json: the lead as the REST list sends it (lead-json.ts), after every other write.
// lead_json and lead_calls go with a deleted lead (foreign keys, on delete cascade), the lead's row
// and calls into its trash row (src/db/trash); src/db/trash/restore.ts puts them back and rebuilds
// the search copies, lead_json and lead_counts with these same helpers. There are no
// triggers (migration 20261209120000 dropped them). `seed bulk` (bulk-seed.ts) writes the same
// derived rows for its batches, and so does an import's batch (import-batch.ts: contacts, leads
// with their search copies, lead_json, lead_counts, and its contact.created and lead.created
// events with their webhook deliveries, a statement per table for the batch).

/** What a change sets: the contact's person fields and the lead's own; absent means unchanged. */
export interface LeadChange {
  person?: PersonChange;
  fields?: Partial<LeadFields>;
  /** Record now as the conversion's time (leads.convert, with status CONVERTED). */
  convertedNow?: boolean;
}

/** Which lead a change is for: its id, or (an upsert) the external id it holds. */
export type LeadKey = string | { externalId: string };

/** What a lead's change did: the lead as it was (its row locked by the write) and as it is, and its contact when the change set person fields. */
export interface LeadWrite {
  before: Lead;
  lead: Lead;
  contact?: contacts.Contact;
}

/**
 * Changes a lead and, with `person`, its contact; undefined when the workspace has no such lead.
 * The lead's row is locked and changed in one statement that also answers it as it was; `check`
 * then sees that and may throw, which rolls the transaction back (nothing is written). Then the
 * contact and the derived rows. A person change reaches every lead of the contact
 * (their search copies and JSON; only this lead's own fields and `updatedAt` move).
 * Statements: the lead, the contact (with `person`), the JSON, the counters (when the status or
 * assignee moved); one more when a person change meets a contact with other leads.
 */
export async function updateLead(
  trx: Knex.Transaction,
  orgId: string,
  lead: LeadKey,
  change: LeadChange,
  check: (before: Lead) => void = () => {},
): Promise<LeadWrite | undefined> {
  const person = change.person && hasAny(change.person) ? change.person : undefined;
  const row = await changeLeadRow(trx, orgId, lead, change, person);
  if (!row) return undefined;
  const before = toLead({ ...row, ...beforeColumnsOf(row) });
  check(before);
  const contact = person && (await contacts.update(trx, orgId, row.contact_id, person));
  const after = toLead(contact ? { ...row, ...personColumnsOf(contact) } : row);
  // The contact's other leads, if it has any (seeded data may share one), take its new search text.
  if (contact && row.contact_leads > 1) await copyContactSearch(trx, orgId, contact);
  await storeLeadJson(trx, orgId, contact ? { contactId: contact.id } : { leadIds: [row.id] });
  await addToCounts(trx, orgId, moved(before, after));
  return contact ? { before, lead: after, contact } : { before, lead: after };
}

/**
 * Locks the lead for the rest of the transaction and answers it whole, for a write that must read
 * it before it writes (leads.convert builds the client from it; If-Match compares its version).
 */
export async function lockLead(trx: Knex.Transaction, orgId: string, leadId: string): Promise<Lead | undefined> {
  const row: LeadRow | undefined = await leadsWithContacts(trx, orgId).select(LEAD_COLUMNS).where('l.id', leadId).forUpdate('l').first();
  return row && toLead(row);
}

/**
 * Deletes a lead (its contact stays) into the trash; undefined when the workspace has no such
 * lead. Its tasks keep their fields and lose the link; its counters go down; its JSON goes with
 * it; its row, its calls (cascaded) and the tasks it was unlinked from are kept in its trash row
 * (src/db/trash), moved there by the delete's own statement. Statements: the tasks, the lead, the
 * counters, as before the trash.
 */
export async function deleteLead(
  trx: Knex.Transaction,
  orgId: string,
  leadId: string,
  deletedBy: DeletedBy,
): Promise<{ before: Lead } | undefined> {
  const unlinkedTasks = await tasks.clearLead(trx, orgId, leadId);
  const row = await moveToTrash<LeadRow>(trx, orgId, {
    resource: 'lead',
    table: TABLES.leads,
    id: leadId,
    deletedBy,
    contactOf: 't.contact_id',
    dependents: [{ key: 'calls', table: TABLES.leadCalls, column: 'lead_id' }],
    unlinked: { tasks: unlinkedTasks },
    join: { from: `${TABLES.contacts} c`, on: 'c.org_id = :org and c.id = t.contact_id' },
    // The person as it was, for the trash's list should the contact be gone by then.
    extra: `'person', jsonb_build_object('name', c.name, 'phones', c.phones, 'emails', c.emails, 'company', c.company)`,
    answer: LEAD_COLUMNS.map((column) => column.replace(/^l\./, 't.')).join(', '),
  });
  if (!row) return undefined;
  const before = toLead(row);
  await addToCounts(trx, orgId, [{ status: before.status, assignedToId: before.assignedToId, n: -1 }]);
  return { before };
}

/**
 * Unlinks a client from its leads, before the client is deleted (the foreign key refuses the
 * delete otherwise); answers their ids (the client's trash row keeps them). Their `updatedAt`
 * stays: the lead was not edited. No counter moves.
 */
export async function unlinkClient(trx: Knex.Transaction, orgId: string, clientId: string): Promise<string[]> {
  const rows: { id: string }[] = await trx(TABLES.leads)
    .where({ org_id: orgId, client_id: clientId })
    .update({ client_id: null })
    .returning(['id']);
  const ids = rows.map((r) => r.id).sort();
  if (ids.length > 0) await storeLeadJson(trx, orgId, { leadIds: ids });
  return ids;
}

/** The row `changeLeadRow` answers: the lead as it now is, its contact's person fields before the change, `before_*` columns, how many leads the contact has. */
type ChangedRow = LeadRow & Record<`before_${(typeof BEFORE_COLUMNS)[number]}`, unknown> & { contact_leads: number };

/** The lead's own columns as the change's statement answers them from before it. */
const BEFORE_COLUMNS = ['status', 'source', 'notes', 'next_call_at', 'assigned_to_id', 'client_id', 'external_id', 'updated_at'] as const;

const FIELD_COLUMNS: Record<keyof LeadFields, string> = {
  status: 'status', source: 'source', notes: 'notes', nextCallAt: 'next_call_at', assignedToId: 'assigned_to_id', clientId: 'client_id',
  externalId: 'external_id',
};

/**
 * One statement: locks the lead (the CTE `o`, FOR UPDATE, which also answers its columns as
 * they were), sets its own fields and `updatedAt`, and with a person change its search copies
 * from the new person fields (the stored ones where not given) and counts the contact's leads.
 * Answers the changed row, or none.
 */
async function changeLeadRow(
  trx: Knex.Transaction,
  orgId: string,
  lead: LeadKey,
  change: LeadChange,
  person: PersonChange | undefined,
): Promise<ChangedRow | undefined> {
  const sets: string[] = [];
  const values: Knex.Value[] = [];
  for (const [field, column] of Object.entries(FIELD_COLUMNS) as [keyof LeadFields, string][]) {
    const value = change.fields?.[field];
    if (value === undefined) continue;
    sets.push(`${column} = ?`);
    values.push(value);
  }
  if (change.convertedNow) sets.push(`converted_at = ${WRITE_TIME}`);
  sets.push(`updated_at = ${nextUpdatedAtOf('l.updated_at')}`);
  if (person) {
    const copies = copiesFrom(person);
    sets.push(copies.sql);
    values.push(...copies.bound);
  }
  const contactLeads = person ? `(select count(*) from ${TABLES.leads} s where s.org_id = ? and s.contact_id = leads.contact_id)` : '1';
  // The locked row is read once (MATERIALIZED): in a workspace younger than the table's statistics,
  // PostgreSQL may take the workspace for one row and scan it for the lead, and with the lock in a
  // subquery it did so once per lead of the workspace (21 s for one change at 10,000 leads); this
  // way such a plan costs a scan (3 ms there), and fresh statistics a key lookup. Not by ctid: a
  // change that waited for another's lock must reach the row version that one wrote.
  const { rows: [row] } = await trx.raw<{ rows: ChangedRow[] }>(
    `with o as materialized (
       select ${['id', 'contact_id', ...BEFORE_COLUMNS].join(', ')}, ${contactLeads}::int as contact_leads
       from ${TABLES.leads} where org_id = ? and ${typeof lead === 'string' ? 'id' : 'external_id'} = ? for update
     )
     update ${TABLES.leads} l set ${sets.join(', ')}
     from o
     join ${TABLES.contacts} c on c.org_id = ? and c.id = o.contact_id
     where l.org_id = ? and l.id = o.id
     returning ${LEAD_COLUMNS.join(', ')}, o.contact_leads, ${BEFORE_COLUMNS.map((column) => `o.${column} as before_${column}`).join(', ')}`,
    [...(person ? [orgId] : []), orgId, typeof lead === 'string' ? lead : lead.externalId, ...values, orgId, orgId],
  );
  return row;
}

function beforeColumnsOf(row: ChangedRow): Partial<LeadRow> {
  return Object.fromEntries(BEFORE_COLUMNS.map((column) => [column, row[`before_${column}`]]));
}

function personColumnsOf(contact: contacts.Contact): Pick<LeadRow, 'name' | 'phones' | 'emails' | 'company'> {
  return { name: contact.name, phones: contact.phones, emails: contact.emails, company: contact.company };
}

/** A lead leaving its (status, assignee) group for another: -1 and +1 (nothing when it stays). */
export function moved(
  before: { status: LeadStatus; assignedToId: string | null },
  after: { status: LeadStatus; assignedToId: string | null },
): CountDelta[] {
  if (before.status === after.status && before.assignedToId === after.assignedToId) return [];
  return [
    { status: before.status, assignedToId: before.assignedToId, n: -1 },
    { status: after.status, assignedToId: after.assignedToId, n: 1 },
  ];
}
