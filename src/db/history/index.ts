import type { Knex } from 'knex';
import type { Db } from '../knex';
import { TABLES } from '../tables';
import { PERSON_KEY, EVENTS_NAMED, eventsNamedBindings } from '../events/keys';
import type { ActorKind } from '../../domain/event-types';

// The change history of leads, contacts and clients, read (leads.getHistory and the others).
// Entries are written with the events of each write (src/db/events/record.ts, from the entries
// src/events/history.ts decides), never here: a change's, delete's or restore's as a
// record_history row; a creation's is its `<noun>.created` event itself while the event is kept
// (EVENTS_RETENTION_DAYS), and the events' purge moves it here first (`keepCreations`), so a create
// writes no history row and the history is still kept as long as its record. A record's page is a
// keyset walk of the primary key (org_id, resource, record_id, changed_at, id) backwards, newest
// first, each page after the entry the previous one ended on (entries written meanwhile never
// shift a page), joined by its creation from the events. A person's history is that of their
// contact and leads, by the same key and the person index of the events.

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

/** The entries' columns, as record_history names them, after org_id (src/db/events/record.ts inserts them in this order). */
export const ENTRY_COLUMNS = 'id, resource, record_id, changed_at, action, actor_kind, actor_id, procedure, request_id, changes';

/** The `<noun>.created` event of each resource: its creation's entry while the event is kept. */
const CREATION_TYPES = `('lead.created', 'contact.created', 'client.created')`;
// The searched form of CASE: Citus deparses a simple CASE (`case e.type when ...`) in a pushed-down INSERT ... SELECT wrongly.
const RESOURCE_CREATED = `(case when e.type = 'lead.created' then 'lead' when e.type = 'contact.created' then 'contact' else 'client' end)`;
const CREATED_AT = `cast(e.data #>> '{object,updatedAt}' as timestamptz)`;
const CREATION_ID = `'hist_' || substr(e.id, 5)`;

/**
 * A creation's entry read from its event `e`, in ENTRY_COLUMNS' order: the event's object as
 * created for `changes` (answered as its followed fields set, `createdChanges`), at the object's
 * `updatedAt`, with the event's actor, procedure and request id; its id the event's, prefixed
 * `hist_`.
 */
const CREATION_OF_EVENT = `${CREATION_ID}, ${RESOURCE_CREATED}, e.object_id, ${CREATED_AT}, 'created',
  e.actor_kind, e.actor_id, e.procedure, e.request_id, e.data -> 'object'`;

/** Not already in record_history (a creation written there before its event was purged, or by an older build). */
const NOT_KEPT = `not exists (select 1 from ${TABLES.recordHistory} h where h.org_id = e.org_id and h.resource = ${RESOURCE_CREATED}
  and h.record_id = e.object_id and h.changed_at = ${CREATED_AT} and h.id = ${CREATION_ID})`;

/**
 * A record's entries (named bindings `:org`, `:record`): its rows in record_history, by the
 * primary key's prefix, and its creation from its `<noun>.created` event while that is kept,
 * found by the person index (a lead's by its contact, whose key it is) and its object's id.
 */
function entriesOf(resource: HistoryResource): { kept: string; creation: string } {
  const person = resource === 'lead' ? `(select l.contact_id from ${TABLES.leads} l where l.org_id = :org and l.id = :record)` : ':record';
  return {
    kept: `select ${ENTRY_COLUMNS} from ${TABLES.recordHistory} where org_id = :org and resource = '${resource}' and record_id = :record`,
    creation: `select ${CREATION_OF_EVENT} from ${TABLES.events} e
      where e.org_id = :org and ${PERSON_KEY} = ${person} and e.type = '${resource}.created' and e.object_id = :record and ${NOT_KEPT}`,
  };
}

/** Whether the record's history has the entry `id` (a page's cursor names the entry it ends on). */
export async function hasEntry(db: Db, orgId: string, resource: HistoryResource, recordId: string, id: string): Promise<boolean> {
  const { kept, creation } = entriesOf(resource);
  const { rows } = await db.raw<{ rows: unknown[] }>(
    `select 1 from (${kept} union all ${creation}) entries where id = :id`, { org: orgId, record: recordId, id },
  );
  return rows.length > 0;
}

/**
 * Up to `pageSize` entries of the record's history, newest first, after the entry `after` when
 * given (its place read by key in the same statement: its time as stored, to the microsecond);
 * `more` when others follow. The kept rows are walked backwards along the primary key; the
 * creation, at most one, joins them.
 */
export async function listPage(
  db: Db, orgId: string, resource: HistoryResource, recordId: string, after: string | undefined, pageSize: number,
): Promise<{ entries: HistoryEntry[]; more: boolean }> {
  const { kept, creation } = entriesOf(resource);
  const place = after === undefined ? '' : `with place as (select changed_at, id from (${kept} union all ${creation}) entries where id = :after)`;
  const before = (time: string, id: string) => (after === undefined ? '' : ` and (${time}, ${id}) < (select changed_at, id from place)`);
  const { rows } = await db.raw<{ rows: HistoryRow[] }>(
    `${place} select ${ENTRY_COLUMNS} from (
       (${kept}${before('changed_at', 'id')} order by changed_at desc, id desc limit :limit)
       union all (${creation}${before(CREATED_AT, CREATION_ID)})
     ) page order by changed_at desc, id desc limit :limit`,
    { org: orgId, record: recordId, limit: pageSize + 1, ...(after !== undefined && { after }) },
  );
  return { entries: rows.slice(0, pageSize).map(toEntry), more: rows.length > pageSize };
}

/** A person's records: their contact and its leads (live and in the trash), whose entries are the person's own data. */
export interface PersonRecords {
  contactId: string;
  leadIds: readonly string[];
}

/** A person's kept rows, by the primary key's prefix (bindings: the workspace, the contact, the leads' ids). */
const PERSON_ROWS = `org_id = ? and ((resource = 'contact' and record_id = ?) or (resource = 'lead' and record_id = any(?::text[])))`;

const personBindings = (orgId: string, person: PersonRecords) => [orgId, person.contactId, [...person.leadIds]];

/**
 * A person's entries (contacts.exportPersonalData), newest first, each with the record it is
 * about: the kept rows of their contact and leads, and the creations still in their events
 * (found by the person index).
 */
export async function listOfPerson(db: Db, orgId: string, person: PersonRecords): Promise<(HistoryEntry & { resource: 'lead' | 'contact'; recordId: string })[]> {
  const { rows } = await db.raw<{ rows: (HistoryRow & { resource: 'lead' | 'contact'; record_id: string })[] }>(
    `select ${ENTRY_COLUMNS} from ${TABLES.recordHistory} where ${PERSON_ROWS}
     union all
     select ${CREATION_OF_EVENT} from ${TABLES.events} e
     where e.org_id = ? and ${PERSON_KEY} = ? and e.type in ('lead.created', 'contact.created') and ${NOT_KEPT}
     order by changed_at desc, id desc`,
    [...personBindings(orgId, person), orgId, person.contactId],
  );
  return rows.map((row) => ({ resource: row.resource, recordId: row.record_id, ...toEntry(row) }));
}

/**
 * Deletes a person's kept entries (the erasure; their creations still in events go with the
 * events' personal fields). A client's entries stay: they hold the client's own fields.
 */
export async function deleteOfPerson(trx: Knex.Transaction, orgId: string, person: PersonRecords): Promise<number> {
  const { rowCount } = await trx.raw(`delete from ${TABLES.recordHistory} where ${PERSON_ROWS}`, personBindings(orgId, person));
  return rowCount ?? 0;
}

/**
 * Keeps the creations among the events `(orgIds[i], eventIds[i])` as record_history rows, before
 * the events' purge deletes them (src/db/events, `purgeOlderThan`, in its transaction): those of
 * records still there, live or in the trash (a record purged from the trash has no history). Rows
 * already kept stay as they are, so a purge that runs again writes nothing twice.
 */
export async function keepCreations(trx: Knex.Transaction, orgIds: readonly string[], eventIds: readonly string[]): Promise<void> {
  const exists = (table: string, type: string) =>
    `exists (select 1 from ${table} r where e.type = '${type}' and r.org_id = e.org_id and r.id = e.object_id)`;
  await trx.raw(
    `insert into ${TABLES.recordHistory} (org_id, ${ENTRY_COLUMNS})
     select e.org_id, ${CREATION_OF_EVENT} from ${TABLES.events} e
     where ${EVENTS_NAMED('e')} and e.type in ${CREATION_TYPES}
       and (${exists(TABLES.leads, 'lead.created')} or ${exists(TABLES.contacts, 'contact.created')} or ${exists(TABLES.clients, 'client.created')}
         or exists (select 1 from ${TABLES.trash} t where t.org_id = e.org_id and t.resource = ${RESOURCE_CREATED} and t.id = e.object_id))
     on conflict do nothing`,
    eventsNamedBindings(orgIds, eventIds),
  );
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
