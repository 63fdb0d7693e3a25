import type { Knex } from 'knex';
import type { Db } from '../knex';
import { TABLES, WRITE_TIME } from '../tables';
import { prepared } from '../prepared-statements';

// The one way events are recorded. A write's events are decided and built above the data layer
// (src/events/record-events.ts: their ids, read scopes and JSON, from what the write answers it
// changed); here they are written, with one pending webhook delivery per endpoint that wants
// each, from one text of each insert (the endpoints an event goes to are matched in
// `deliveriesInsert` only, and in `BULK_DELIVERIES` for the bulk form). Four forms of it:
// - `insertEvents(trx, events)`: in the write's transaction, after its rows (two statements, the
//   second only when the workspace has an enabled endpoint);
// - `firstEventsCtes(events)`: the same inserts as CTE text, for a write that creates the events'
//   objects in one statement of its own (the leads' createLead): each is its object's first
//   event, so its deliveries need no number the event took (FIRST_EVENT_SEQ);
// - `changeEventsCtes(events, onlyWith)`: the same as CTE text for a write that changes its
//   objects in one statement (leads.upsert's change of a lead it saw), only when it does;
// - `insertFirstEventsInBulk(trx, events)`: many first events in two statements (an import's batch).
// Each form also writes the history entries its events carry (`NewEvent.history`: the change
// history of leads, contacts and clients, src/db/history) as one more CTE of its first statement:
// the history costs a write no statement and no round trip of its own.

/** An event about to be recorded, with the read scope its type needs (its deliveries check it). */
export interface NewEvent {
  orgId: string;
  id: string;
  type: string;
  scope: string;
  actor: { kind: string; id: string };
  objectId: string | null;
  /** Plain JSON: Dates already ISO 8601 text. */
  data: Record<string, unknown>;
  /** The history entries of the write this event announces, written with it (record_history). */
  history?: readonly NewHistoryEntry[];
}

/** One entry of a record's change history (record_history's row), built with the write's events. */
export interface NewHistoryEntry {
  id: string;
  resource: 'lead' | 'contact' | 'client';
  recordId: string;
  /** The contact the record is about (the erasure finds a person's history by it), or null. */
  personId: string | null;
  /** The record's new `updatedAt` (its versions' order); null: the writing statement's time (a delete). */
  changedAt: Date | null;
  action: 'created' | 'updated' | 'deleted';
  actor: { kind: string; id: string };
  procedure: string | null;
  requestId: string | null;
  /** `{field: {from, to}}`, fields as the API names them, values as plain JSON. */
  changes: Record<string, { from: unknown; to: unknown }>;
}

/** Whether the workspace `:org` has an enabled webhook endpoint: only then can an event need a delivery. */
const ENDPOINTS_EXIST = `exists (select 1 from webhook_endpoints where org_id = :org and enabled)`;

/**
 * The `event_seq` of a delivery of an object's first event (the event of its creation): nothing
 * of that object comes before it, and every later event of it takes a number from the sequence,
 * which starts at 1. So a write that creates its objects can insert their deliveries in the same
 * statement as the events, without reading the numbers the events took.
 */
const FIRST_EVENT_SEQ = 0;

/**
 * Records events, in the write's transaction (`trx`): they commit or roll back with the change.
 * The first statement inserts them and reads whether the workspace has an enabled webhook
 * endpoint; only then (few writes) does a second insert their deliveries.
 *
 * Order: each event takes the writing transaction's id (`txid`) and the next number of one
 * sequence (`seq`), both column defaults; nothing is locked, so a workspace's writers commit in
 * parallel. Readers order by (txid, seq) below a horizon (src/db/events, `listAfter`). A
 * delivery's `event_seq` is its event's, read back by key in the same statement: two writes of
 * one object take its row lock in turn, so the later one's events took later numbers, and the
 * worker delivers an object's events in that order. On Citus both statements run in the
 * workspace's shard alone and the transaction commits in one phase, which the event horizon
 * relies on (docs/decisions.md, "Event order").
 */
export async function insertEvents(trx: Db, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  const bindings = bindingsOf(events);
  bindings.org = onlyWorkspaceOf(events);
  const texts = textsFor(events.length);
  const history = historyBindingOf(events);
  const eventsAndEndpoints = history ? texts.eventsHistoryAndEndpoints : texts.eventsAndEndpoints;
  const { rows } = await prepared(trx, trx.raw<{ rows: { endpoints: boolean }[] }>(eventsAndEndpoints, { ...bindings, ...history }));
  if (rows[0]!.endpoints) await prepared(trx, trx.raw(texts.deliveries, bindings));
}

/**
 * `insertEvents` as CTE text (`events as (...), deliveries as (...)`, to follow a statement's own
 * CTEs) with its named bindings, for a write that creates the events' objects in one statement;
 * every event must be its object's first (FIRST_EVENT_SEQ). The statement binds the workspace as
 * `:org`. The text depends only on how many events there are.
 */
export function firstEventsCtes(events: readonly NewEvent[], onlyWith?: string): { sql: string; bindings: Record<string, Knex.Value> } {
  const sql = onlyWith === undefined ? textsFor(events.length).firstEventsCtes : guardedFirstEventsCtes(events.length, onlyWith);
  const history = historyBindingOf(events);
  if (!history) return { sql, bindings: bindingsOf(events) };
  return { sql: `${sql}, ${historyCte(onlyWith)}`, bindings: { ...bindingsOf(events), ...history } };
}

/**
 * `firstEventsCtes`' text for a statement whose objects may not be created (leads.upsert's create,
 * whose lead is not inserted when another holds its external id): the events and their deliveries
 * are inserted only when the statement's CTE `onlyWith` answers a row.
 */
const GUARDED_TEXTS = new Map<string, string>();

function guardedFirstEventsCtes(n: number, onlyWith: string): string {
  const key = `${n}:${onlyWith}`;
  let text = GUARDED_TEXTS.get(key);
  if (text === undefined) {
    const guard = `exists (select 1 from ${onlyWith})`;
    text = `events as (${eventsInsert(n, guard)}), deliveries as (${deliveriesInsert(n, 'first')} and ${guard})`;
    GUARDED_TEXTS.set(key, text);
  }
  return text;
}

/**
 * `insertEvents` as CTE text for a write that changes existing objects in one statement of its
 * own (leads.upsert's change of a lead it saw: src/db/leads/upsert.ts): the events are inserted
 * only when the statement's CTE `onlyWith` answers a row, and their deliveries take the numbers
 * the events took from the insert's RETURNING (the statement cannot read its own inserts back).
 * The statement binds the workspace as `:org`.
 */
export function changeEventsCtes(events: readonly NewEvent[], onlyWith: string): { sql: string; bindings: Record<string, Knex.Value> } {
  const key = `${events.length}:${onlyWith}`;
  let sql = CHANGE_TEXTS.get(key);
  if (sql === undefined) {
    sql = `recorded_events as (${eventsInsert(events.length, `exists (select 1 from ${onlyWith})`)} returning id, seq), `
      + `recorded_deliveries as (${deliveriesInsert(events.length, 'returned')})`;
    CHANGE_TEXTS.set(key, sql);
  }
  const history = historyBindingOf(events);
  if (!history) return { sql, bindings: bindingsOf(events) };
  return { sql: `${sql}, ${historyCte(onlyWith)}`, bindings: { ...bindingsOf(events), ...history } };
}

const CHANGE_TEXTS = new Map<string, string>();

/**
 * `insertEvents` for many events at once, each its object's first (FIRST_EVENT_SEQ): an import's
 * batch, the contact.created and lead.created of each lead it creates. The events come from one
 * JSON array and are inserted in its order (their `seq` follows it); their deliveries only when
 * the workspace has an enabled endpoint. Two statements whatever the count, of one text each.
 */
export async function insertFirstEventsInBulk(trx: Knex.Transaction, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  const bindings = {
    org: onlyWorkspaceOf(events),
    events: JSON.stringify(events.map((e, n) => ({
      n, id: e.id, type: e.type, scope: e.scope, actor_kind: e.actor.kind, actor_id: e.actor.id, object_id: e.objectId, data: e.data,
    }))),
  };
  const history = historyBindingOf(events);
  const { rows } = await trx.raw<{ rows: { endpoints: boolean }[] }>(history ? BULK_EVENTS_WITH_HISTORY : BULK_EVENTS, { ...bindings, ...history });
  if (rows[0]!.endpoints) await trx.raw(BULK_DELIVERIES, bindings);
}

const BULK_EVENTS = `with recorded as (
    insert into ${TABLES.events} (org_id, id, type, actor_kind, actor_id, object_id, data)
    select :org, e.id, e.type, e.actor_kind, e.actor_id, e.object_id, e.data
    from jsonb_to_recordset(:events::jsonb) as e(n int, id text, type text, actor_kind text, actor_id text, object_id text, data jsonb)
    order by e.n
  ) select ${ENDPOINTS_EXIST} as endpoints`;

const BULK_EVENTS_WITH_HISTORY = BULK_EVENTS.replace(") select ", `), ${historyInsert(undefined)} select `);

/** `deliveriesInsert`'s matching, for the events of a JSON array (each its object's first). */
const BULK_DELIVERIES = `insert into webhook_deliveries (org_id, id, endpoint_id, event_id, event_seq, object_id)
    select w.org_id, 'dlv_' || md5(e.id || ':' || w.id), w.id, e.id, ${FIRST_EVENT_SEQ}, e.object_id
    from jsonb_to_recordset(:events::jsonb) as e(id text, type text, scope text, object_id text)
    join webhook_endpoints w
      on (w.events @> array[e.type] or w.events @> array['*']) and w.read_scopes @> array[e.scope]
    where w.org_id = :org and w.enabled`;

/** The statements' texts for `n` events, made once per count (a write records at most a few). */
const TEXTS: { eventsAndEndpoints: string; eventsHistoryAndEndpoints: string; deliveries: string; firstEventsCtes: string }[] = [];

function textsFor(n: number): (typeof TEXTS)[number] {
  return TEXTS[n] ??= {
    eventsAndEndpoints: `with recorded as (${eventsInsert(n)}) select ${ENDPOINTS_EXIST} as endpoints`,
    eventsHistoryAndEndpoints: `with recorded as (${eventsInsert(n)}), ${historyCte()} select ${ENDPOINTS_EXIST} as endpoints`,
    deliveries: deliveriesInsert(n, 'recorded'),
    firstEventsCtes: `events as (${eventsInsert(n)}), deliveries as (${deliveriesInsert(n, 'first')})`,
  };
}

/**
 * The history entries the events carry, as one named binding (`:history`, a JSON array), or
 * undefined when they carry none. One binding whatever their count: the text stays the same.
 */
function historyBindingOf(events: readonly NewEvent[]): { history: string } | undefined {
  const entries = events.flatMap((e) => e.history ?? []);
  if (entries.length === 0) return undefined;
  return {
    history: JSON.stringify(entries.map((h, n) => ({
      n, id: h.id, resource: h.resource, record_id: h.recordId, person_id: h.personId, changed_at: h.changedAt?.toISOString() ?? null,
      action: h.action, actor_kind: h.actor.kind, actor_id: h.actor.id, procedure: h.procedure, request_id: h.requestId, changes: h.changes,
    }))),
  };
}

/**
 * The CTE that inserts the history entries of `:history` (with the statement's `:org`); with
 * `onlyWith`, only when that CTE of the statement answers a row (as its events are). A delete's
 * entry has no `updatedAt` to take: it takes the statement's time, as a write's `updatedAt` does.
 */
function historyCte(onlyWith?: string): string {
  let text = HISTORY_TEXTS.get(onlyWith);
  if (text === undefined) HISTORY_TEXTS.set(onlyWith, text = historyInsert(onlyWith));
  return text;
}

const HISTORY_TEXTS = new Map<string | undefined, string>();

function historyInsert(onlyWith: string | undefined): string {
  return `recorded_history as (
    insert into ${TABLES.recordHistory} (org_id, id, resource, record_id, person_id, changed_at, action, actor_kind, actor_id, procedure, request_id, changes)
    select :org, h.id, h.resource, h.record_id, h.person_id, coalesce(h.changed_at, ${WRITE_TIME}), h.action, h.actor_kind, h.actor_id,
      h.procedure, h.request_id, h.changes
    from jsonb_to_recordset(:history::jsonb) as h(n int, id text, resource text, record_id text, person_id text, changed_at timestamptz,
      action text, actor_kind text, actor_id text, procedure text, request_id text, changes jsonb)
    ${onlyWith === undefined ? '' : `where exists (select 1 from ${onlyWith}) `}order by h.n
  )`;
}

/** Each event's values as named bindings: `:event<i>Id`, `:event<i>Type`, and so on. */
function bindingsOf(events: readonly NewEvent[]): Record<string, Knex.Value> {
  const bindings: Record<string, Knex.Value> = {};
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    bindings[`event${i}Id`] = e.id;
    bindings[`event${i}Type`] = e.type;
    bindings[`event${i}Scope`] = e.scope;
    bindings[`event${i}ActorKind`] = e.actor.kind;
    bindings[`event${i}ActorId`] = e.actor.id;
    bindings[`event${i}Object`] = e.objectId;
    bindings[`event${i}Data`] = JSON.stringify(e.data);
  }
  return bindings;
}

const indexes = (n: number) => Array.from({ length: n }, (_, i) => i);

/** With `guard` (a condition), the rows are inserted only when it holds. */
function eventsInsert(n: number, guard?: string): string {
  const rows = indexes(n).map((i) => `(:org, :event${i}Id, :event${i}Type, :event${i}ActorKind, :event${i}ActorId, :event${i}Object, :event${i}Data::jsonb)`);
  const into = `insert into ${TABLES.events} (org_id, id, type, actor_kind, actor_id, object_id, data)`;
  if (guard) return `${into} select * from (values ${rows.join(', ')}) as e where ${guard}`;
  return `${into} values ${rows.join(', ')}`;
}

/**
 * One pending delivery of each event per enabled webhook endpoint of the workspace that
 * subscribes to its type (or to `*`) and whose kept read scopes cover it. Its `event_seq`: the
 * number the event took (`recorded`: read back by key, the event inserted by an earlier
 * statement; `returned`: from the CTE `recorded_events` of the same statement), or
 * FIRST_EVENT_SEQ (`first`). A delivery's id is derived from its event and
 * endpoint, which make it unique: a write may not call a volatile function on Citus.
 */
function deliveriesInsert(n: number, seq: 'recorded' | 'returned' | 'first'): string {
  const values = indexes(n).map((i) => `(:event${i}Id::text, :event${i}Type::text, :event${i}Scope::text, :event${i}Object::text)`);
  const numbered = { first: '', recorded: `join ${TABLES.events} r on r.org_id = :org and r.id = e.id`, returned: 'join recorded_events r on r.id = e.id' }[seq];
  return `insert into webhook_deliveries (org_id, id, endpoint_id, event_id, event_seq, object_id)
    select w.org_id, 'dlv_' || md5(e.id || ':' || w.id), w.id, e.id, ${seq === 'first' ? FIRST_EVENT_SEQ : 'r.seq'}, e.object_id
    from (values ${values.join(', ')}) as e(id, type, scope, object_id)
    ${numbered}
    join webhook_endpoints w
      on (w.events @> array[e.type] or w.events @> array['*']) and w.read_scopes @> array[e.scope]
    where w.org_id = :org and w.enabled`;
}

function onlyWorkspaceOf(events: readonly NewEvent[]): string {
  const orgId = events[0]!.orgId;
  if (events.some((e) => e.orgId !== orgId)) throw new Error('events: all of one workspace');
  return orgId;
}
