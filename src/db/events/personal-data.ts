import type { Knex } from 'knex';
import type { Db } from '../knex';
import { TABLES } from '../tables';
import { EVENT_COLUMNS, toEvent, type EventRow, type WorkspaceEvent } from './index';

// A person's events: found through events_org_person_idx (migration 20261214120000), whose
// expression this is, word for word (the planner uses the index only for the same text). A lead.*
// event belongs to the contact its lead object embeds, which also finds the events of the
// person's leads deleted before; any other event to its object (contact.*: the contact).
const PERSON_KEY = `(case when type like 'lead.%' then data #>> '{object,contactId}' else object_id end)`;

/** The fields of an event's object (and of a logged call) that are a person's data: removed by an erasure. */
export const PERSONAL_FIELDS = ['name', 'phones', 'emails', 'primaryPhone', 'primaryEmail', 'notes', 'externalId'] as const;

/** The ids of the leads whose events name the contact: its leads today and any deleted before. */
export async function leadIdsNamingContact(db: Db, orgId: string, contactId: string): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { id: string }[] }>(
    `select distinct object_id as id from ${TABLES.events} where org_id = ? and ${PERSON_KEY} = ? and type like 'lead.%' and object_id is not null`,
    [orgId, contactId],
  );
  return rows.map((r) => r.id);
}

/** The person's events, oldest first (contacts.exportPersonalData). */
export async function listNamingContact(db: Db, orgId: string, contactId: string): Promise<WorkspaceEvent[]> {
  const rows: EventRow[] = await db(TABLES.events)
    .select(EVENT_COLUMNS)
    .where('org_id', orgId)
    .whereRaw(`${PERSON_KEY} = ?`, [contactId])
    .orderBy([{ column: 'txid' }, { column: 'seq' }]);
  return rows.map(toEvent);
}

/**
 * Keeps the person's events as records that something happened, without the personal fields:
 * `data.object` (and a logged call, `data.call`) lose PERSONAL_FIELDS and say `erased: true`.
 * Pending webhook deliveries read the event when they are sent, so they go out so reduced.
 * Then the attempts of their deliveries lose the receiver's response excerpt, which may echo the
 * body. Answers the ids of the events changed.
 */
export async function erasePersonalFields(trx: Knex.Transaction, orgId: string, contactId: string): Promise<string[]> {
  const fields = `array[${PERSONAL_FIELDS.map((f) => `'${f}'`).join(', ')}]`;
  const { rows } = await trx.raw<{ rows: { id: string }[] }>(
    `update ${TABLES.events} set data = jsonb_set(
        case when data -> 'call' is not null then jsonb_set(data, '{call}', ((data -> 'call') - ${fields}) || '{"erased": true}') else data end,
        '{object}', ((data -> 'object') - ${fields}) || '{"erased": true}')
     where org_id = ? and ${PERSON_KEY} = ?
     returning id`,
    [orgId, contactId],
  );
  const eventIds = rows.map((r) => r.id);
  if (eventIds.length > 0) {
    await trx.raw(
      `update ${TABLES.webhookDeliveryAttempts} a set response_excerpt = null
       from ${TABLES.webhookDeliveries} d
       where a.org_id = ? and d.org_id = ? and d.event_id = any(?::text[]) and a.delivery_id = d.id and a.response_excerpt is not null`,
      [orgId, orgId, eventIds],
    );
  }
  return eventIds;
}
