import type { Knex } from 'knex';
import type { Db } from '../knex';
import { TABLES } from '../tables';
import type { ActorKind } from '../../domain/event-types';

// The change history of leads, contacts and clients, read (leads.getHistory and the others). Its
// rows are written with the events of each write (src/db/events/record.ts, from the entries
// src/events/history.ts decides), never here. A record's page is a keyset walk of the primary
// key (org_id, resource, record_id, changed_at, id) backwards: newest first, each page after the
// entry the previous one ended on, so entries written meanwhile never shift a page. A person's
// history is that of their contact and leads, by the same key.

export type HistoryResource = 'lead' | 'contact' | 'client';

/**
 * The fields of each resource its history follows, as the API names them. Fields the API derives
 * (primaryPhone, primaryEmail) and the record's own times are not entries' fields: an entry has
 * its own time. A change's entry is decided from these above the data layer
 * (src/events/history.ts); a creation's row keeps the record as created (its event's object,
 * src/db/events/record.ts), and is answered as these fields set (`createdChanges`).
 */
export const HISTORY_FIELDS = {
  lead: ['name', 'phones', 'emails', 'company', 'status', 'source', 'notes', 'nextCallAt', 'assignedToId', 'clientId', 'externalId'],
  contact: ['name', 'phones', 'emails', 'company', 'externalId'],
  client: ['name', 'contactId', 'company', 'email', 'phone', 'notes', 'externalId'],
} as const satisfies Record<HistoryResource, readonly string[]>;

/** A field's value in an entry: text (times as ISO 8601 text), a list of text (phones, emails), or null. */
export type FieldValue = string | string[] | null;

/** One entry as the API answers it. */
export interface HistoryEntry {
  id: string;
  changedAt: Date;
  action: 'created' | 'updated' | 'deleted' | 'restored';
  actor: { kind: ActorKind; id: string };
  procedure: string | null;
  requestId: string | null;
  changes: Record<string, { from: FieldValue; to: FieldValue }>;
}

interface HistoryRow {
  id: string;
  resource: HistoryResource;
  changed_at: Date;
  action: HistoryEntry['action'];
  actor_kind: ActorKind;
  actor_id: string;
  procedure: string | null;
  request_id: string | null;
  changes: HistoryEntry['changes'];
}

const RECORD_TABLES: Record<HistoryResource, string> = { lead: TABLES.leads, contact: TABLES.contacts, client: TABLES.clients };

/** Whether the workspace has the record (a history is read of a record that is there, as getById reads it). */
export async function recordExists(db: Db, orgId: string, resource: HistoryResource, recordId: string): Promise<boolean> {
  const row = await db(RECORD_TABLES[resource]).select('id').where({ org_id: orgId, id: recordId }).first();
  return row !== undefined;
}

/** Whether the record's history has the entry `id` (a page's cursor names the entry it ends on). */
export async function hasEntry(db: Db, orgId: string, resource: HistoryResource, recordId: string, id: string): Promise<boolean> {
  const row = await db(TABLES.recordHistory).select('id').where({ org_id: orgId, id, resource, record_id: recordId }).first();
  return row !== undefined;
}

/**
 * Up to `pageSize` entries of the record's history, newest first, after the entry `after` when
 * given (its place read by key in the same statement: its time as stored, to the microsecond);
 * `more` when others follow.
 */
export async function listPage(
  db: Db, orgId: string, resource: HistoryResource, recordId: string, after: string | undefined, pageSize: number,
): Promise<{ entries: HistoryEntry[]; more: boolean }> {
  const query = db(TABLES.recordHistory)
    .select('id', 'resource', 'changed_at', 'action', 'actor_kind', 'actor_id', 'procedure', 'request_id', 'changes')
    .where({ org_id: orgId, resource, record_id: recordId })
    .orderBy([{ column: 'changed_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(pageSize + 1);
  if (after !== undefined) {
    query.whereRaw(`(changed_at, id) < (select p.changed_at, p.id from ${TABLES.recordHistory} p
      where p.org_id = ? and p.resource = ? and p.record_id = ? and p.id = ?)`, [orgId, resource, recordId, after]);
  }
  const rows: HistoryRow[] = await query;
  return { entries: rows.slice(0, pageSize).map(toEntry), more: rows.length > pageSize };
}

/** A person's records: their contact and its leads (live and in the trash), whose entries are the person's own data. */
export interface PersonRecords {
  contactId: string;
  leadIds: readonly string[];
}

/** The statement's condition on a person's entries, by the primary key's prefix. */
function ofPerson(query: Knex.QueryBuilder, orgId: string, person: PersonRecords): Knex.QueryBuilder {
  return query.where('org_id', orgId).where((q) => q.where({ resource: 'contact', record_id: person.contactId })
    .orWhere((lead) => lead.where('resource', 'lead').whereIn('record_id', person.leadIds)));
}

/** A person's entries (contacts.exportPersonalData), newest first, each with the record it is about. */
export async function listOfPerson(db: Db, orgId: string, person: PersonRecords): Promise<(HistoryEntry & { resource: 'lead' | 'contact'; recordId: string })[]> {
  const rows: (HistoryRow & { resource: 'lead' | 'contact'; record_id: string })[] = await ofPerson(db(TABLES.recordHistory), orgId, person)
    .select('id', 'resource', 'record_id', 'changed_at', 'action', 'actor_kind', 'actor_id', 'procedure', 'request_id', 'changes')
    .orderBy([{ column: 'changed_at', order: 'desc' }, { column: 'id', order: 'desc' }]);
  return rows.map((row) => ({ resource: row.resource, recordId: row.record_id, ...toEntry(row) }));
}

/** Deletes a person's entries (the erasure). A client's entries stay: they hold the client's own fields. */
export function deleteOfPerson(trx: Knex.Transaction, orgId: string, person: PersonRecords): Promise<number> {
  return ofPerson(trx(TABLES.recordHistory), orgId, person).delete();
}

function toEntry(row: HistoryRow): HistoryEntry {
  return {
    id: row.id, changedAt: row.changed_at, action: row.action, actor: { kind: row.actor_kind, id: row.actor_id },
    procedure: row.procedure, requestId: row.request_id,
    changes: row.action === 'created' ? createdChanges(row.resource, row.changes as unknown as Record<string, FieldValue>) : row.changes,
  };
}

/**
 * A creation's changes: every followed field the record was created with set (not null), from
 * null. Its row keeps the record as created, so a create writes its entry from the values its
 * event binds anyway, with nothing computed or bound for the history (a create's cost).
 */
function createdChanges(resource: HistoryResource, created: Record<string, FieldValue>): HistoryEntry['changes'] {
  const changes: HistoryEntry['changes'] = {};
  for (const field of HISTORY_FIELDS[resource]) {
    const to = created[field];
    if (to !== null && to !== undefined) changes[field] = { from: null, to };
  }
  return changes;
}
