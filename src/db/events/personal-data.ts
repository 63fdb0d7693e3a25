import type { Knex } from 'knex';
import type { Db } from '../knex';
import { TABLES } from '../tables';
import { EVENT_COLUMNS, toEvent, type EventRow, type WorkspaceEvent } from './index';
import { PERSON_KEY } from './keys';

// A person's events: found through events_org_person_idx, by its expression (PERSON_KEY).

/**
 * What an erasure writes over the personal fields of an event's object (and of a logged call):
 * blanks of each field's type, so the objects keep the shape clients are typed against.
 */
export const BLANK_PERSONAL_FIELDS = {
  name: '', phones: [], emails: [], primaryPhone: null, primaryEmail: null, notes: null, externalId: null,
} as const;

/** `object` with those of its fields that are personal blanked (the fields it lacks stay absent). */
export function blankPersonalFields<T extends object>(object: T): T {
  const blanks = Object.entries(BLANK_PERSONAL_FIELDS).filter(([field]) => field in object);
  return { ...object, ...Object.fromEntries(blanks) };
}

// No `::` casts below: the statement takes named bindings, which knex reads `:name` in.
/** The SQL of blankPersonalFields on a jsonb expression: the blanks of the keys it has, merged over it. */
const blanked = (json: string) => `(${json} || coalesce((select jsonb_object_agg(b.key, b.value) from jsonb_each(cast(:blanks as jsonb)) b
  where b.key in (select jsonb_object_keys(${json}))), cast('{}' as jsonb)))`;

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
 * Keeps the person's events as records that something happened, without the personal data:
 * `data.object` (and a logged call, `data.call`) get BLANK_PERSONAL_FIELDS and `data.erased` is
 * true. Pending webhook deliveries read the event when they are sent, so they go out so blanked.
 * Then the attempts of their deliveries lose the receiver's response excerpt, which may echo the
 * body. Answers the ids of the events changed.
 */
export async function erasePersonalFields(trx: Knex.Transaction, orgId: string, contactId: string): Promise<string[]> {
  const { rows } = await trx.raw<{ rows: { id: string }[] }>(
    `update ${TABLES.events} set data = jsonb_set(
        case when data -> 'call' is not null then jsonb_set(data, '{call}', ${blanked("data -> 'call'")}) else data end,
        '{object}', ${blanked("data -> 'object'")}) || cast('{"erased": true}' as jsonb)
     where org_id = :orgId and ${PERSON_KEY} = :contactId
     returning id`,
    { orgId, contactId, blanks: JSON.stringify(BLANK_PERSONAL_FIELDS) },
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
