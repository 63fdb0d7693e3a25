import type { Db } from '../knex';
import { TABLES } from '../tables';
import type { ActorKind } from '../../domain/event-types';

// The change history of leads, contacts and clients, read (leads.getHistory and the others). Its
// rows are written with the events of each write (src/db/events/record.ts, from the entries
// src/events/history.ts decides), never here. A record's page is a keyset walk of the index
// (org_id, resource, record_id, changed_at desc, id desc): newest first, each page after the
// entry the previous one ended on, so entries written meanwhile never shift a page.

export type HistoryResource = 'lead' | 'contact' | 'client';

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
    .select('id', 'changed_at', 'action', 'actor_kind', 'actor_id', 'procedure', 'request_id', 'changes')
    .where({ org_id: orgId, resource, record_id: recordId })
    .orderBy([{ column: 'changed_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(pageSize + 1);
  if (after !== undefined) {
    query.whereRaw(`(changed_at, id) < (select p.changed_at, p.id from ${TABLES.recordHistory} p where p.org_id = ? and p.id = ?)`, [orgId, after]);
  }
  const rows: HistoryRow[] = await query;
  return { entries: rows.slice(0, pageSize).map(toEntry), more: rows.length > pageSize };
}

/**
 * A person's entries (the contact's and its leads', contacts.exportPersonalData), newest first,
 * each with the record it is about; by the index (org_id, person_id).
 */
export async function listOfPerson(db: Db, orgId: string, contactId: string): Promise<(HistoryEntry & { resource: PersonResource; recordId: string })[]> {
  const rows: (HistoryRow & { resource: PersonResource; record_id: string })[] = await db(TABLES.recordHistory)
    .select('id', 'resource', 'record_id', 'changed_at', 'action', 'actor_kind', 'actor_id', 'procedure', 'request_id', 'changes')
    .where({ org_id: orgId, person_id: contactId })
    .whereIn('resource', PERSON_RESOURCES)
    .orderBy([{ column: 'changed_at', order: 'desc' }, { column: 'id', order: 'desc' }]);
  return rows.map((row) => ({ resource: row.resource, recordId: row.record_id, ...toEntry(row) }));
}

/**
 * The resources whose entries are the person's own data. A client's entries name its linked
 * contact as their person too, but hold the client's own fields: an erasure unlinks them.
 */
export const PERSON_RESOURCES = ['lead', 'contact'] as const;
type PersonResource = (typeof PERSON_RESOURCES)[number];

function toEntry(row: HistoryRow): HistoryEntry {
  return {
    id: row.id, changedAt: row.changed_at, action: row.action, actor: { kind: row.actor_kind, id: row.actor_id },
    procedure: row.procedure, requestId: row.request_id, changes: row.changes,
  };
}
