import type { Knex } from 'knex';
import type { Db } from '../knex';
import { TABLES } from '../tables';
import { changeEventsCtes, firstEventsCtes, insertEvents, type NewEvent } from '../events';
import { prepared } from '../prepared-statements';
import { toContact, type Contact } from '../contacts';
import { bindingsOf, LEAD_INSERT, RENDERED, renderedFrom } from './create';
import { COUNT_DELTA_INSERT_WITH_LEAD, countDeltasCte } from './counters';
import { moved, updateLead, type LeadChange, type LeadWrite } from './writes';
import { LEAD_COLUMNS, leadsWithContacts, toLead, type Lead, type LeadRow } from './shape';

// A lead by its external id (leads.upsert, PUT /api/v1/leads/external/{externalId}, imports in
// upsert mode): created when no lead of the workspace holds the id, else changed. The create is
// one statement that writes nothing when the id is held (`createLeadUnlessHeld`: the unique
// index of external ids decides, so of many racing upserts of one id exactly one creates), and
// answers the lead holding it as the statement saw it. The change is then one more statement on
// that version (`changeSeenLead`): a sync's upsert costs two round trips where `updateLead`'s
// transaction took eight, and half an upsert benchmark's calls are such changes. When the version
// moved meanwhile (or the change needs what only the transaction does: a caller naming a
// version, a contact with other leads) it is `updateLead`'s, in a transaction, on the lead found
// and locked by its id.

/** What an upsert does with the lead holding `create.lead.externalId`, or without one. */
export interface LeadUpsert {
  /**
   * The lead to create (newLead's, with its external id) and the events of its creation
   * (contact.created, lead.created), written in one statement with it. Absent: the caller wants
   * only the lead that holds the id changed (it named a version of it: expectedUpdatedAt, If-Match).
   */
  create?: { lead: Lead; events: readonly NewEvent[] };
  /** The external id; `create.lead.externalId` when a create is given. */
  externalId: string;
  /** What changes on the lead holding the id (as leads.update's change; absent fields stay). */
  change: LeadChange;
  /** Sees the held lead as it was, locked; throws to refuse the change (nothing is written). */
  check?: (before: Lead) => void;
  /** The change's events (from leadWriteEvents), recorded with it. */
  changeEvents?: (written: LeadWrite) => NewEvent[];
}

/** The lead created, or the change of the lead that held the id; undefined when none held it and no create was given. */
export type LeadUpserted = { created: true; lead: Lead } | { created: false; write: LeadWrite };

/**
 * A lead deleted between the create that found its id held and the change that looks for it is
 * gone: the create is tried again. Each round needs a concurrent delete of that very lead, so a
 * few rounds only fail under a storm of create-and-delete of one id (then 409, retry).
 */
const ROUNDS = 3;

export async function upsertLead(db: Db, orgId: string, upsert: LeadUpsert): Promise<LeadUpserted | undefined> {
  const { create } = upsert;
  if (create && create.lead.externalId !== upsert.externalId) throw new Error('upsertLead: the lead to create holds another external id');
  for (let round = 0; round < ROUNDS; round++) {
    if (create) {
      const tried = await createLeadUnlessHeld(db, orgId, create.lead, create.events);
      if (tried.created) return { created: true, lead: create.lead };
      const write = tried.held && (await changeSeenLead(db, orgId, tried.held, upsert));
      if (write) return { created: false, write };
    }
    const write = await db.transaction(async (trx) => {
      // Found and locked by its external id in the change's own statement (a concurrent change
      // of the id that committed first is seen, and the lead no longer matches).
      const written = await updateLead(trx, orgId, { externalId: upsert.externalId }, upsert.change, upsert.check);
      const events = written && upsert.changeEvents?.(written);
      if (events) await insertEvents(trx, events);
      return written;
    });
    if (write) return { created: false, write };
    if (!create) return undefined;
  }
  // Not an AppError: src/errors turns a serialization failure into "changed by another request; retry".
  throw Object.assign(new Error('upsertLead: the lead holding the external id was deleted each time it was found'), { code: '40001' });
}

/** `lockLead` by external id: the lead holding it, locked for the transaction (a REST If-Match compares its version). */
export async function lockLeadByExternalId(trx: Knex.Transaction, orgId: string, externalId: string): Promise<Lead | undefined> {
  const row: LeadRow | undefined = await leadsWithContacts(trx, orgId).select(LEAD_COLUMNS).where('l.external_id', externalId).forUpdate('l').first();
  return row && toLead(row);
}

/** The lead holding an external id as a statement saw it: its row and its contact's own columns. */
interface SeenRow extends LeadRow {
  contact_created_at: Date;
  contact_updated_at: Date;
  contact_external_id: string | null;
}

/**
 * `createLead` for a lead with an external id that another lead of the workspace may hold: the
 * same rows and events in one statement, each written only when the lead is (`on conflict ... do
 * nothing` on the unique index of external ids; the other rows read the CTE `lead`). Answers
 * whether it was: not when a lead holds the id, committed or committing (the insert waits for a
 * concurrent one to end), and then nothing is written and `held` is that lead as the statement's
 * snapshot saw it (none when it was committed after the statement began).
 */
async function createLeadUnlessHeld(db: Db, orgId: string, lead: Lead, events: readonly NewEvent[]): Promise<{ created: true } | { created: false; held?: SeenRow }> {
  if (lead.externalId === null) throw new Error('createLeadUnlessHeld: the lead has no external id');
  const recorded = firstEventsCtes(events, 'lead');
  const { rows: [row] } = await prepared(db, db.raw<{ rows: (SeenRow & { created: boolean })[] }>(
    `${CREATE_LEAD_UNLESS_HELD}, ${recorded.sql} ${SELECT_CREATED_OR_HELD}`,
    { ...bindingsOf(orgId, lead), ...recorded.bindings },
  ));
  if (row!.created) return { created: true };
  return { created: false, held: row!.id === null ? undefined : row };
}

/** CREATE_LEAD_ROWS of create.ts, the lead first and every other row only with it (`from lead`). */
const CREATE_LEAD_UNLESS_HELD = `
  with lead as (
    ${LEAD_INSERT}
    on conflict (org_id, external_id) where external_id is not null do nothing
    returning id
  ), contact as (
    insert into ${TABLES.contacts} (org_id, id, name, phones, emails, company, created_at, updated_at)
    select :org, :contact, :name, :phones::text[], :emails::text[], :company, :now::timestamptz, :now::timestamptz from lead
  ), json as (
    insert into ${TABLES.leadJson} (org_id, lead_id, json) select :org, :lead, ${RENDERED} from lead
  ), counts as (
    ${COUNT_DELTA_INSERT_WITH_LEAD}
  )`;

/** Whether the lead was created, and else the lead holding its external id with its contact (both by key), or nulls. */
const SELECT_CREATED_OR_HELD = `
  select exists (select 1 from lead) as created, h.*
  from (select 1) as one
  left join lateral (
    select ${LEAD_COLUMNS.join(', ')}, c.created_at as contact_created_at, c.updated_at as contact_updated_at, c.external_id as contact_external_id
    from ${TABLES.leads} l
    join ${TABLES.contacts} c on c.org_id = :org and c.id = l.contact_id
    where l.org_id = :org and l.external_id = :externalId and not exists (select 1 from lead)
  ) as h on true`;

/**
 * The change of a lead as `createLeadUnlessHeld` saw it, in one statement and only if neither it
 * nor its contact has changed since (their `updatedAt`, which every write moves by at least a
 * millisecond): the lead and its contact locked and changed, its stored JSON, counters and events
 * with their deliveries, each a CTE naming the workspace (on Citus, one shard group). What they
 * write is worked out here from the version seen, as a create's is from its input; `check` sees
 * that version first. Undefined, nothing written, when the version moved, when the contact has
 * other leads (their search copies and JSON would move too: `updateLead` does that), or when the
 * change is more than an upsert makes: the caller then takes `updateLead`'s transaction.
 */
async function changeSeenLead(db: Db, orgId: string, seen: SeenRow, upsert: LeadUpsert): Promise<LeadWrite | undefined> {
  const { person = {}, fields = {}, convertedNow } = upsert.change;
  if (convertedNow || fields.clientId !== undefined || fields.externalId !== undefined) return undefined;
  const before = toLead(seen);
  try {
    upsert.check?.(before);
  } catch {
    // Refused on this version: the transaction's check on the latest one decides (and answers why).
    return undefined;
  }
  const now = Date.now();
  const given = <T>(value: T | undefined, stored: T): T => (value === undefined ? stored : value);
  const lead = toLead({
    ...seen,
    name: given(person.name, seen.name), phones: given(person.phones, seen.phones), emails: given(person.emails, seen.emails),
    company: given(person.company, seen.company),
    status: given(fields.status, seen.status), source: given(fields.source, seen.source), notes: given(fields.notes, seen.notes),
    next_call_at: given(fields.nextCallAt, seen.next_call_at), assigned_to_id: given(fields.assignedToId, seen.assigned_to_id),
    updated_at: nextUpdatedAt(seen.updated_at, now),
  });
  const contact: Contact = toContact({
    id: seen.contact_id, name: lead.name, phones: lead.phones, emails: lead.emails, company: lead.company,
    created_at: seen.contact_created_at, updated_at: nextUpdatedAt(seen.contact_updated_at, now), external_id: seen.contact_external_id,
  });
  const write: LeadWrite = { before, lead, contact };
  const counts = countDeltasCte(moved(before, lead), 'o');
  const changeEvents = upsert.changeEvents?.(write) ?? [];
  const events = changeEvents.length > 0 ? changeEventsCtes(changeEvents, 'o') : undefined;
  const { rows } = await prepared(db, db.raw<{ rows: { changed: boolean }[] }>(
    `${CHANGE_SEEN_LEAD}${counts ? `, ${counts.sql}` : ''}${events ? `, ${events.sql}` : ''}
     select exists (select 1 from o) as changed`,
    {
      ...bindingsOf(orgId, lead), createdAt: lead.createdAt, updatedAt: lead.updatedAt, contactUpdatedAt: contact.updatedAt,
      seenUpdatedAt: seen.updated_at, seenContactUpdatedAt: seen.contact_updated_at, ...counts?.bindings, ...events?.bindings,
    },
  ));
  return rows[0]!.changed ? write : undefined;
}

/** next_updated_at (migration 20261209120000) in this process: the write's time, or a millisecond after the version it replaces. */
function nextUpdatedAt(previous: Date, now: number): Date {
  return new Date(Math.max(now, previous.getTime() + 1));
}

/**
 * The lead and its contact locked at the versions seen (`o`, none when either moved or the
 * contact has another lead), then each row written from the bound values (bindingsOf's names,
 * the lead's times `:createdAt` and `:updatedAt`, the contact's `:contactUpdatedAt`), only with `o`.
 */
const CHANGE_SEEN_LEAD = `
  with o as materialized (
    select l.id from ${TABLES.leads} l, ${TABLES.contacts} c
    where l.org_id = :org and l.id = :lead and l.updated_at = :seenUpdatedAt::timestamptz
      and c.org_id = :org and c.id = :contact and c.updated_at = :seenContactUpdatedAt::timestamptz
      and not exists (select 1 from ${TABLES.leads} s where s.org_id = :org and s.contact_id = :contact and s.id <> :lead)
    for update of l, c
  ), changed_lead as (
    update ${TABLES.leads} l set status = :status, source = :source, notes = :notes, next_call_at = :nextCallAt::timestamptz,
      assigned_to_id = :assignee, updated_at = :updatedAt::timestamptz,
      contact_search_lower = lower(contact_search_text(:name, :company, :emails::text[], :phones::text[])),
      contact_phone_digits = contact_phone_digits(:phones::text[])
    from o where l.org_id = :org and l.id = o.id
  ), changed_contact as (
    update ${TABLES.contacts} c set name = :name, phones = :phones::text[], emails = :emails::text[], company = :company,
      updated_at = :contactUpdatedAt::timestamptz
    from o where c.org_id = :org and c.id = :contact
  ), json as (
    insert into ${TABLES.leadJson} (org_id, lead_id, json) select :org, :lead, ${renderedFrom(':createdAt', ':updatedAt')} from o
    on conflict (org_id, lead_id) do update set json = excluded.json
  )`;
