import type { Knex } from 'knex';
import type { Db } from '../knex';
import { TABLES, NEXT_UPDATED_AT, WRITE_TIME } from '../tables';
import * as tasksQueries from '../tasks';
import { newId } from '../../domain/ids';
import type { LeadStatus } from '../../domain/lead-status';
import type { Contact } from '../contacts';
import { addToCounts, type CountDelta } from './counters';
import { CallValues, compiledPerShape } from '../compiled-statements';
import { LEAD_COLUMNS, leadsWithContacts, toColumns, toLead, type Lead, type LeadFields, type LeadRow } from './shape';

// The leads' data path. What each write also changes, in the caller's transaction (there are no
// triggers: migration 20261209120000 dropped them; events are recorded by the procedures):
// - insert, insertMany: lead_counts +1 (counters.ts); the lead's copies of its contact's search
//   text (contact_search_lower, contact_phone_digits), read from the contact; lead_json.
// - update, markConverted: lead_counts -1/+1 when the status or assignee moves; lead_json.
// - remove: the lead's tasks lose the link first (src/db/tasks clearLead); lead_counts -1;
//   lead_json and lead_calls go with the lead (foreign keys, on delete cascade).
// - clearAssignee, clearClient (a member or client about to be deleted): lead_counts, lead_json.
// - applyContactChange (src/db/contacts calls it when a contact's person fields change): the
//   copies and the lead_json of the contact's leads.
// - bulk-seed.ts (seed bulk) writes the same rows, set-based, per batch.
// lead_json holds each lead as the REST list sends it, rendered by the view lead_json_render
// (migration 20261205120000).

export type { Lead, LeadFields } from './shape';
export type { LeadListFilters, ListPosition } from './page-statement';
export type { LeadSortKey } from './cursor';
export { listLeadsPage, renderLeadsPageJson, list, listAsJson, type LeadsPageRequest, type CursorPage } from './list';
export { insertCall, listCalls, type LeadCall, type LeadCallFields } from './calls';
export { startCounterFolding } from './counters';

/** The hottest read: compiled once and run on the hot reads' pool (src/db/compiled-statements.ts says what that buys). */
const compiledGetById = compiledPerShape((db, { orgId, leadId }: { orgId: string; leadId: string }) =>
  leadsWithContacts(db, orgId).select(LEAD_COLUMNS).where('l.id', leadId).limit(1));

export async function getById(db: Db, orgId: string, leadId: string): Promise<Lead | undefined> {
  const values = new CallValues();
  const [row] = await compiledGetById(db, { orgId: values.of(orgId), leadId: values.of(leadId) }, values).rows<LeadRow>();
  return row ? toLead(row) : undefined;
}

declare const locked: unique symbol;

/** A lead as `lockForUpdate` answered it: its row stays locked until the transaction ends, so these values are current. */
export interface LockedLead {
  id: string;
  contactId: string;
  status: LeadStatus;
  assignedToId: string | null;
  updatedAt: Date;
  readonly [locked]: true;
}

/** Locks the lead row for the rest of the transaction; answers what an update must check, and counts from. */
export async function lockForUpdate(trx: Knex.Transaction, orgId: string, leadId: string): Promise<LockedLead | undefined> {
  const row = await trx(TABLES.leads)
    .select('contact_id', 'status', 'assigned_to_id', 'updated_at')
    .where({ org_id: orgId, id: leadId })
    .forUpdate()
    .first();
  if (!row) return undefined;
  return { id: leadId, contactId: row.contact_id, status: row.status, assignedToId: row.assigned_to_id, updatedAt: row.updated_at } as LockedLead;
}

/**
 * A new lead about `contact`, a contact inserted in this transaction: answered as the API will
 * answer it without reading it back (its timestamps are the contact's, the transaction's `now()`).
 */
export async function insert(trx: Knex.Transaction, orgId: string, contact: Contact, fields: LeadFields): Promise<Lead> {
  const id = newId('lead');
  const { createdAt } = contact;
  await insertMany(trx, orgId, [{ ...fields, id, contactId: contact.id, createdAt, updatedAt: createdAt }]);
  const { name, phones, emails, company } = contact;
  return toLead({
    id, contact_id: contact.id, status: fields.status, source: fields.source, notes: fields.notes, next_call_at: fields.nextCallAt,
    assigned_to_id: fields.assignedToId, client_id: fields.clientId,
    // Two Date objects: one object at two paths would be written as a superjson referential equality.
    created_at: createdAt, updated_at: new Date(createdAt),
    name, phones: [...phones], emails: [...emails], company,
  });
}

/** A lead to insert: its contact (inserted before), its own fields, and (demo data, tests) any of its id and times. */
export interface NewLead extends LeadFields {
  contactId: string;
  id?: string;
  /** Each is the transaction's `now()` when absent. */
  createdAt?: Date;
  updatedAt?: Date;
  convertedAt?: Date | null;
}

/**
 * Inserts leads in one statement, each with the copies of its contact's search text read from the
 * contact, then adds them to the counters and stores their JSON. Answers their ids.
 */
export async function insertMany(trx: Knex.Transaction, orgId: string, leads: readonly NewLead[]): Promise<string[]> {
  const rows = leads.map((lead) => ({
    id: lead.id ?? newId('lead'), contact_id: lead.contactId, status: lead.status, source: lead.source, notes: lead.notes,
    next_call_at: lead.nextCallAt, assigned_to_id: lead.assignedToId, client_id: lead.clientId, converted_at: lead.convertedAt ?? null,
    created_at: lead.createdAt ?? null, updated_at: lead.updatedAt ?? null,
  }));
  const { rowCount } = await trx.raw(
    `insert into ${TABLES.leads} (org_id, id, contact_id, status, source, notes, next_call_at, assigned_to_id, client_id, converted_at,
       created_at, updated_at, contact_search_lower, contact_phone_digits)
     select c.org_id, r.id, c.id, r.status, r.source, r.notes, r.next_call_at, r.assigned_to_id, r.client_id, r.converted_at,
       coalesce(r.created_at, now()), coalesce(r.updated_at, now()), lower(c.search_text), c.phone_digits
     from jsonb_to_recordset(?::jsonb) as r(id text, contact_id text, status text, source text, notes text, next_call_at timestamptz,
       assigned_to_id text, client_id text, converted_at timestamptz, created_at timestamptz, updated_at timestamptz)
     -- Each contact by its key (OFFSET 0 keeps the lateral subquery from becoming a join): joined,
     -- a workspace newer than its statistics looked empty, and every create read all its contacts.
     cross join lateral (
       select c.org_id, c.id, c.search_text, c.phone_digits from ${TABLES.contacts} c where c.org_id = ? and c.id = r.contact_id offset 0
     ) c
     order by r.id`,
    [JSON.stringify(rows), orgId],
  );
  if (rowCount !== rows.length) throw new Error(`a lead's contact is not in workspace ${orgId}`);
  await addToCounts(trx, orgId, leads.map((lead) => ({ status: lead.status, assignedToId: lead.assignedToId, n: 1 })));
  const ids = rows.map((r) => r.id);
  await storeLeadJson(trx, orgId, { leadIds: ids });
  return ids;
}

/** Changes a locked lead's own fields (its person fields are its contact's: src/db/contacts `update`). */
export async function update(trx: Knex.Transaction, orgId: string, lead: LockedLead, patch: Partial<LeadFields>): Promise<void> {
  await trx(TABLES.leads)
    .where({ org_id: orgId, id: lead.id })
    .update({ ...toColumns(patch), updated_at: trx.raw(NEXT_UPDATED_AT) });
  const after = {
    status: patch.status ?? lead.status,
    assignedToId: patch.assignedToId === undefined ? lead.assignedToId : patch.assignedToId,
  };
  await addToCounts(trx, orgId, moved(lead, after));
  await storeLeadJson(trx, orgId, { leadIds: [lead.id] });
}

/** The one write that makes a lead CONVERTED: links the client and records when (for conversion rates). */
export async function markConverted(trx: Knex.Transaction, orgId: string, lead: LockedLead, clientId: string): Promise<void> {
  const status: LeadStatus = 'CONVERTED';
  await trx(TABLES.leads)
    .where({ org_id: orgId, id: lead.id })
    .update({ status, client_id: clientId, converted_at: trx.raw(WRITE_TIME), updated_at: trx.raw(NEXT_UPDATED_AT) });
  await addToCounts(trx, orgId, moved(lead, { status, assignedToId: lead.assignedToId }));
  await storeLeadJson(trx, orgId, { leadIds: [lead.id] });
}

/** Answers false when there was no such lead in the workspace. Its tasks keep their fields and lose the link. */
export async function remove(trx: Knex.Transaction, orgId: string, leadId: string): Promise<boolean> {
  await tasksQueries.clearLead(trx, orgId, leadId);
  const [row]: { status: LeadStatus; assigned_to_id: string | null }[] = await trx(TABLES.leads)
    .where({ org_id: orgId, id: leadId })
    .delete()
    .returning(['status', 'assigned_to_id']);
  if (!row) return false;
  await addToCounts(trx, orgId, [{ status: row.status, assignedToId: row.assigned_to_id, n: -1 }]);
  return true;
}

/**
 * Leaves the member's leads unassigned, before the member is deleted (the foreign key refuses
 * the delete otherwise). Their `updatedAt` stays: the lead was not edited.
 */
export async function clearAssignee(trx: Knex.Transaction, orgId: string, memberId: string): Promise<void> {
  const rows: { id: string; status: LeadStatus }[] = await trx(TABLES.leads)
    .where({ org_id: orgId, assigned_to_id: memberId })
    .update({ assigned_to_id: null })
    .returning(['id', 'status']);
  if (rows.length === 0) return;
  await addToCounts(trx, orgId, rows.flatMap(({ status }) => moved({ status, assignedToId: memberId }, { status, assignedToId: null })));
  await storeLeadJson(trx, orgId, { leadIds: rows.map((r) => r.id) });
}

/**
 * Unlinks the client from its leads, before the client is deleted (the foreign key refuses the
 * delete otherwise). Their `updatedAt` stays: the lead was not edited.
 */
export async function clearClient(trx: Knex.Transaction, orgId: string, clientId: string): Promise<void> {
  const rows: { id: string }[] = await trx(TABLES.leads)
    .where({ org_id: orgId, client_id: clientId })
    .update({ client_id: null })
    .returning(['id']);
  if (rows.length > 0) await storeLeadJson(trx, orgId, { leadIds: rows.map((r) => r.id) });
}

/**
 * The contact's name, company, emails or phones changed (in this transaction): its leads take the
 * new search text (contacts.search_text and phone_digits are generated from those fields) and
 * their stored JSON is rendered again. The leads are locked first, in id order, and before their
 * JSON: the order in which a transaction that writes several leads one by one takes them.
 */
export async function applyContactChange(trx: Knex.Transaction, orgId: string, contactId: string): Promise<void> {
  const locked = await trx(TABLES.leads).select('id').where({ org_id: orgId, contact_id: contactId }).orderBy('id').forNoKeyUpdate();
  if (locked.length === 0) return;
  await trx.raw(
    `update ${TABLES.leads} l set contact_search_lower = lower(c.search_text), contact_phone_digits = c.phone_digits
     from ${TABLES.contacts} c
     where c.org_id = ? and c.id = ? and l.org_id = ? and l.contact_id = ?`,
    [orgId, contactId, orgId, contactId],
  );
  await storeLeadJson(trx, orgId, { contactId });
}

/**
 * (Re)writes the stored JSON of the given leads, or of the contact's leads, as the view
 * lead_json_render renders them from the leads and contacts as they now are. In lead order, so
 * that two writes never lock the same rows in opposite orders.
 */
export async function storeLeadJson(trx: Knex.Transaction, orgId: string, which: { leadIds: readonly string[] } | { contactId: string }): Promise<void> {
  if ('contactId' in which) {
    await trx.raw(
      `insert into ${TABLES.leadJson} (org_id, lead_id, json)
       select org_id, lead_id, json from lead_json_render where org_id = ? and contact_id = ?
       order by lead_id
       on conflict (org_id, lead_id) do update set json = excluded.json`,
      [orgId, which.contactId],
    );
    return;
  }
  // Each lead rendered by its own keys (OFFSET 0 keeps the lateral subquery from being flattened
  // into a join): two primary-key probes per lead, however stale the statistics. Planned as a
  // join, a batch of a workspace newer than the statistics read every contact of the workspace
  // for each lead (10,000 new leads: 181 s; by key: about 1 s).
  await trx.raw(
    `insert into ${TABLES.leadJson} (org_id, lead_id, json)
     select r.org_id, r.lead_id, r.json
     from unnest(?::text[]) as k(id)
     cross join lateral (
       select v.org_id, v.lead_id, v.json from lead_json_render v where v.org_id = ? and v.lead_id = k.id offset 0
     ) r
     order by r.lead_id
     on conflict (org_id, lead_id) do update set json = excluded.json`,
    [[...which.leadIds], orgId],
  );
}

/** A lead leaving its (status, assignee) group for another: -1 and +1 (nothing when it stays). */
function moved(
  before: { status: LeadStatus; assignedToId: string | null },
  after: { status: LeadStatus; assignedToId: string | null },
): CountDelta[] {
  if (before.status === after.status && before.assignedToId === after.assignedToId) return [];
  return [
    { status: before.status, assignedToId: before.assignedToId, n: -1 },
    { status: after.status, assignedToId: after.assignedToId, n: 1 },
  ];
}
