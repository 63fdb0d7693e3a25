import type { Knex } from 'knex';
import type { Db } from '../knex';
import { TABLES, nextUpdatedAtOf, WRITE_TIME } from '../tables';
import * as contacts from '../contacts';
import * as tasks from '../tasks';
import { newId } from '../../domain/ids';
import type { LeadStatus } from '../../domain/lead-status';
import { newEvents, type EventDraft, type EventSource } from '../../events/record-events';
import * as eventsQueries from '../events';
import { leadChangeEvents } from '../../events/lead-events';
import { addToCounts, COUNT_DELTA_INSERT, type CountDelta } from './counters';
import { prepared } from '../prepared-statements';
import { storeLeadJson } from './lead-json';
import { LEAD_COLUMNS, leadsWithContacts, toLead, type Lead, type LeadFields, type LeadRow } from './shape';

// The one write path of leads and their contacts. Every procedure that changes a lead, or a
// contact's person fields, comes through here; each function writes the rows, then refreshes
// every row derived from them, once, in the caller's transaction, and answers the change's event
// drafts (the caller records them: src/events/record-events.ts). What a lead's rows derive:
// - lead_counts: +1/-1 per (status, assignee) group a lead enters or leaves (counters.ts);
// - the lead's copies of its contact's search text (leads.contact_search_lower and
//   contact_phone_digits), computed by the same SQL functions as the contact's own columns;
// - lead_json: the lead as the REST list sends it (lead-json.ts), after every other write.
// lead_json and lead_calls go with a deleted lead (foreign keys, on delete cascade). There are no
// triggers (migration 20261209120000 dropped them). `seed bulk` (bulk-seed.ts) writes the same
// derived rows for its batches.

/** A contact's person fields; each given one replaces the stored value. */
export type PersonChange = Partial<contacts.ContactFields>;

/** What a change sets: the contact's person fields and the lead's own; absent means unchanged. */
export interface LeadChange {
  person?: PersonChange;
  fields?: Partial<LeadFields>;
  /** Record now as the conversion's time (leads.convert, with status CONVERTED). */
  convertedNow?: boolean;
}

export interface LeadWrite {
  /** The lead as it was, its row locked by the write. */
  before: Lead;
  lead: Lead;
  events: EventDraft[];
}

/**
 * A new lead and its contact, in one statement: the contact, the lead (with its copies of the
 * contact's search text), its stored JSON, its counter row and, given `recordAs`, its events
 * (`contact.created`, `lead.created`) with their webhook deliveries, each a data-modifying CTE
 * naming the workspace (on Citus each runs as a task in the workspace's shard group, and the
 * statement commits in one phase). One statement is atomic by itself, so it needs no transaction
 * of its own (`db` may be one: an idempotent call's): one round trip where it was nine with
 * BEGIN and COMMIT, and on these machines a round trip is most of a write's server CPU and much
 * of PostgreSQL's. So that the events' JSON is made here like every other event's, the times are
 * this process's clock (to the millisecond, as stored), not the database's. Without `recordAs`
 * (test fixtures) no event is recorded.
 */
export async function createLead(
  db: Db,
  orgId: string,
  person: contacts.ContactFields,
  fields: LeadFields,
  recordAs?: EventSource['actor'],
): Promise<{ lead: Lead }> {
  const ids = { contact: newId('con'), lead: newId('lead') };
  const now = new Date();
  const contact: contacts.Contact = {
    id: ids.contact, name: person.name, phones: [...person.phones], emails: [...person.emails],
    primaryPhone: person.phones[0] ?? null, primaryEmail: person.emails[0] ?? null, company: person.company,
    createdAt: now, updatedAt: new Date(now),
  };
  const lead = toLead({
    id: ids.lead, contact_id: ids.contact, status: fields.status, source: fields.source, notes: fields.notes, next_call_at: fields.nextCallAt,
    assigned_to_id: fields.assignedToId, client_id: fields.clientId,
    // Dates and lists of their own: one object at two paths would be written as a superjson referential equality.
    created_at: new Date(now), updated_at: new Date(now),
    name: person.name, phones: [...person.phones], emails: [...person.emails], company: person.company,
  });
  // Both are their objects' first events, so their deliveries go in the same statement.
  const recorded = recordAs && eventsQueries.eventInserts(
    newEvents({ orgId, actor: recordAs }, [{ type: 'contact.created', object: contact }, { type: 'lead.created', object: lead }]),
  );
  await prepared(db, db.raw(recorded ? createLeadWithEvents(recorded) : CREATE_LEAD, {
    org: orgId, contact: ids.contact, lead: ids.lead, now,
    name: person.name, phones: person.phones, emails: person.emails, company: person.company,
    status: fields.status, source: fields.source, notes: fields.notes, nextCallAt: fields.nextCallAt,
    assignee: fields.assignedToId, client: fields.clientId, assigneeKey: fields.assignedToId ?? '',
    ...recorded?.bindings,
  }));
  return { lead };
}

const CREATE_LEAD_ROWS = `
  with contact as (
    insert into ${TABLES.contacts} (org_id, id, name, phones, emails, company, created_at, updated_at)
    values (:org, :contact, :name, :phones::text[], :emails::text[], :company, :now, :now)
  ), lead as (
    insert into ${TABLES.leads} (org_id, id, contact_id, status, source, notes, next_call_at, assigned_to_id, client_id,
      created_at, updated_at, contact_search_lower, contact_phone_digits)
    values (:org, :lead, :contact, :status, :source, :notes, :nextCallAt::timestamptz, :assignee, :client, :now, :now,
      lower(contact_search_text(:name, :company, :emails::text[], :phones::text[])), contact_phone_digits(:phones::text[]))
  ), json as (
    insert into ${TABLES.leadJson} (org_id, lead_id, json)
    values (:org, :lead, render_lead_json(:lead, :contact, :status, :source, :notes, :nextCallAt::timestamptz, :now::timestamptz, :now::timestamptz,
      :assignee, :client, :name, :phones::text[], :emails::text[], :company))
  ), counts as (
    ${COUNT_DELTA_INSERT}
  )`;
const CREATE_LEAD = `${CREATE_LEAD_ROWS} select 1`;
const createLeadWithEvents = (inserts: { events: string; deliveriesOfFirstEvents: string }) => `${CREATE_LEAD_ROWS}, events as (
    ${inserts.events}
  ), deliveries as (
    ${inserts.deliveriesOfFirstEvents}
  ) select 1`;

/**
 * Changes a lead and, with `person`, its contact; undefined when the workspace has no such lead.
 * The lead's row is locked and changed in one statement that also answers it as it was; `check`
 * then sees that and may throw, which rolls the transaction back (nothing is written). Then the
 * contact, the derived rows and the events. A person change reaches every lead of the contact
 * (their search copies and JSON; only this lead's own fields and `updatedAt` move).
 * Statements: the lead, the contact (with `person`), the JSON, the counters (when the status or
 * assignee moved); one more when a person change meets a contact with other leads.
 */
export async function updateLead(
  trx: Knex.Transaction,
  orgId: string,
  leadId: string,
  change: LeadChange,
  check: (before: Lead) => void = () => {},
): Promise<LeadWrite | undefined> {
  const person = change.person && hasAny(change.person) ? change.person : undefined;
  const row = await changeLeadRow(trx, orgId, leadId, change, person);
  if (!row) return undefined;
  const before = toLead({ ...row, ...beforeColumnsOf(row) });
  check(before);
  const contact = person && (await contacts.update(trx, orgId, row.contact_id, person));
  const lead = toLead(contact ? { ...row, ...personColumnsOf(contact) } : row);
  // The contact's other leads, if it has any (seeded data may share one), take its new search text.
  if (contact && row.contact_leads > 1) await copyContactSearch(trx, orgId, contact);
  await storeLeadJson(trx, orgId, contact ? { contactId: contact.id } : { leadIds: [leadId] });
  await addToCounts(trx, orgId, moved(before, lead));
  const events: EventDraft[] = contact ? [{ type: 'contact.updated', object: contact }] : [];
  return { before, lead, events: [...events, ...leadChangeEvents(before, lead)] };
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
 * Deletes a lead (its contact stays); undefined when the workspace has no such lead. Its tasks
 * keep their fields and lose the link; its counters go down; its JSON and calls go with it.
 */
export async function deleteLead(trx: Knex.Transaction, orgId: string, leadId: string): Promise<{ before: Lead; events: EventDraft[] } | undefined> {
  await tasks.clearLead(trx, orgId, leadId);
  const { rows: [row] } = await trx.raw<{ rows: LeadRow[] }>(
    `delete from ${TABLES.leads} l using ${TABLES.contacts} c
     where l.org_id = ? and l.id = ? and c.org_id = ? and c.id = l.contact_id
     returning ${LEAD_COLUMNS.join(', ')}`,
    [orgId, leadId, orgId],
  );
  if (!row) return undefined;
  const before = toLead(row);
  await addToCounts(trx, orgId, [{ status: before.status, assignedToId: before.assignedToId, n: -1 }]);
  return { before, events: [{ type: 'lead.deleted', object: before }] };
}

/**
 * Changes a contact's person fields and so its leads' search copies and JSON (their own fields
 * and `updatedAt` stay); undefined when there is no such contact. Statements: the contact, its
 * leads' copies, their JSON.
 */
export async function updateContact(
  trx: Knex.Transaction,
  orgId: string,
  contactId: string,
  person: PersonChange,
): Promise<{ contact: contacts.Contact; events: EventDraft[] } | undefined> {
  const contact = await contacts.update(trx, orgId, contactId, person);
  if (!contact) return undefined;
  if (hasAny(person)) {
    await copyContactSearch(trx, orgId, contact);
    await storeLeadJson(trx, orgId, { contactId });
  }
  return { contact, events: [{ type: 'contact.updated', object: contact }] };
}

/**
 * Unlinks a client from its leads, before the client is deleted (the foreign key refuses the
 * delete otherwise). Their `updatedAt` stays: the lead was not edited. No counter moves.
 */
export async function unlinkClient(trx: Knex.Transaction, orgId: string, clientId: string): Promise<void> {
  const rows: { id: string }[] = await trx(TABLES.leads)
    .where({ org_id: orgId, client_id: clientId })
    .update({ client_id: null })
    .returning(['id']);
  if (rows.length > 0) await storeLeadJson(trx, orgId, { leadIds: rows.map((r) => r.id).sort() });
}

/**
 * Leaves the member's leads unassigned, before the member is deleted (the foreign key refuses the
 * delete otherwise). Their `updatedAt` stays: the lead was not edited. Their counters move to
 * unassigned.
 */
export async function unassignMember(trx: Knex.Transaction, orgId: string, memberId: string): Promise<void> {
  const rows: { id: string; status: LeadStatus }[] = await trx(TABLES.leads)
    .where({ org_id: orgId, assigned_to_id: memberId })
    .update({ assigned_to_id: null })
    .returning(['id', 'status']);
  if (rows.length === 0) return;
  await storeLeadJson(trx, orgId, { leadIds: rows.map((r) => r.id).sort() });
  await addToCounts(trx, orgId, rows.flatMap(({ status }) => moved({ status, assignedToId: memberId }, { status, assignedToId: null })));
}

/** Every lead of the contact takes its (new) search text. */
async function copyContactSearch(trx: Knex.Transaction, orgId: string, contact: contacts.Contact): Promise<void> {
  await trx(TABLES.leads).where({ org_id: orgId, contact_id: contact.id }).update(searchCopies(trx, contact));
}

/** A lead's copies of its contact's search text, by the functions that make the contact's own (migration 20261123150100). */
function searchCopies(db: Knex, person: contacts.ContactFields): Record<string, Knex.Raw> {
  return {
    contact_search_lower: db.raw('lower(contact_search_text(?, ?, ?::text[], ?::text[]))', [person.name, person.company, person.emails, person.phones]),
    contact_phone_digits: db.raw('contact_phone_digits(?::text[])', [person.phones]),
  };
}

/** The row `changeLeadRow` answers: the lead as it now is, its contact's person fields before the change, `before_*` columns, how many leads the contact has. */
type ChangedRow = LeadRow & Record<`before_${(typeof BEFORE_COLUMNS)[number]}`, unknown> & { contact_leads: number };

/** The lead's own columns as the change's statement answers them from before it. */
const BEFORE_COLUMNS = ['status', 'source', 'notes', 'next_call_at', 'assigned_to_id', 'client_id', 'updated_at'] as const;

const FIELD_COLUMNS: Record<keyof LeadFields, string> = {
  status: 'status', source: 'source', notes: 'notes', nextCallAt: 'next_call_at', assignedToId: 'assigned_to_id', clientId: 'client_id',
};

/**
 * One statement: locks the lead (the subquery `o`, FOR UPDATE, which also answers its columns as
 * they were), sets its own fields and `updatedAt`, and with a person change its search copies
 * from the new person fields (the stored ones where not given) and counts the contact's leads.
 * Answers the changed row, or none.
 */
async function changeLeadRow(
  trx: Knex.Transaction,
  orgId: string,
  leadId: string,
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
  const { rows: [row] } = await trx.raw<{ rows: ChangedRow[] }>(
    `update ${TABLES.leads} l set ${sets.join(', ')}
     from (
       select ${['id', 'contact_id', ...BEFORE_COLUMNS].join(', ')}, ${contactLeads}::int as contact_leads
       from ${TABLES.leads} where org_id = ? and id = ? for update
     ) o
     join ${TABLES.contacts} c on c.org_id = ? and c.id = o.contact_id
     where l.org_id = ? and l.id = o.id
     returning ${LEAD_COLUMNS.join(', ')}, o.contact_leads, ${BEFORE_COLUMNS.map((column) => `o.${column} as before_${column}`).join(', ')}`,
    [...values, ...(person ? [orgId] : []), orgId, leadId, orgId, orgId],
  );
  return row;
}

/**
 * SET clauses for a lead's copies of its contact's search text after a person change: each
 * argument the given value, or the stored one (`c`, the contact joined); bound in text order.
 */
function copiesFrom(person: PersonChange): { sql: string; bound: Knex.Value[] } {
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

function beforeColumnsOf(row: ChangedRow): Partial<LeadRow> {
  return Object.fromEntries(BEFORE_COLUMNS.map((column) => [column, row[`before_${column}`]]));
}

function personColumnsOf(contact: contacts.Contact): Pick<LeadRow, 'name' | 'phones' | 'emails' | 'company'> {
  return { name: contact.name, phones: contact.phones, emails: contact.emails, company: contact.company };
}

function hasAny(patch: object): boolean {
  return Object.values(patch).some((value) => value !== undefined);
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
