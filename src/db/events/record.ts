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
  action: 'created' | 'updated' | 'deleted' | 'restored';
  actor: { kind: string; id: string };
  procedure: string | null;
  requestId: string | null;
  /** `{field: {from, to}}`, fields as the API names them, values as plain JSON. */
  changes: Record<string, { from: unknown; to: unknown }>;
}

/** record_history's columns, in the order the history inserts give them. */
const HISTORY_COLUMNS = 'org_id, id, resource, record_id, person_id, changed_at, action, actor_kind, actor_id, procedure, request_id, changes';

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
  const history = historyOf(events);
  const eventsAndEndpoints = history.length > 0 ? eventsHistoryAndEndpoints(events.length, history.length) : texts.eventsAndEndpoints;
  const { rows } = await prepared(trx, trx.raw<{ rows: { endpoints: boolean }[] }>(eventsAndEndpoints, { ...bindings, ...historyBindingsOf(history) }));
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
  const history = historyOf(events);
  if (history.length === 0) return { sql, bindings: bindingsOf(events) };
  return { sql: `${sql}, ${historyCte(history.length, onlyWith)}`, bindings: { ...bindingsOf(events), ...historyBindingsOf(history) } };
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
  const history = historyOf(events);
  if (history.length === 0) return { sql, bindings: bindingsOf(events) };
  return { sql: `${sql}, ${historyCte(history.length, onlyWith)}`, bindings: { ...bindingsOf(events), ...historyBindingsOf(history) } };
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
  const history = historyOf(events);
  const { rows } = history.length > 0
    ? await trx.raw<{ rows: { endpoints: boolean }[] }>(BULK_EVENTS_WITH_HISTORY, { ...bindings, history: JSON.stringify(history.map(historyRowOf)) })
    : await trx.raw<{ rows: { endpoints: boolean }[] }>(BULK_EVENTS, bindings);
  if (rows[0]!.endpoints) await trx.raw(BULK_DELIVERIES, bindings);
}

const BULK_EVENTS = `with recorded as (
    insert into ${TABLES.events} (org_id, id, type, actor_kind, actor_id, object_id, data)
    select :org, e.id, e.type, e.actor_kind, e.actor_id, e.object_id, e.data
    from jsonb_to_recordset(:events::jsonb) as e(n int, id text, type text, actor_kind text, actor_id text, object_id text, data jsonb)
    order by e.n
  ) select ${ENDPOINTS_EXIST} as endpoints`;

/** BULK_EVENTS with the batch's history entries, from the JSON array `:history` as its events come from theirs. */
const BULK_EVENTS_WITH_HISTORY = BULK_EVENTS.replace(') select ', `), recorded_history as (
    insert into ${TABLES.recordHistory} (${HISTORY_COLUMNS})
    select :org, h.id, h.resource, h.record_id, h.person_id, coalesce(h.changed_at, ${WRITE_TIME}), h.action, h.actor_kind, h.actor_id,
      h.procedure, h.request_id, h.changes
    from jsonb_to_recordset(:history::jsonb) as h(n int, id text, resource text, record_id text, person_id text, changed_at timestamptz,
      action text, actor_kind text, actor_id text, procedure text, request_id text, changes jsonb)
    order by h.n
  ) select `);

/** `deliveriesInsert`'s matching, for the events of a JSON array (each its object's first). */
const BULK_DELIVERIES = `insert into webhook_deliveries (org_id, id, endpoint_id, event_id, event_seq, object_id)
    select w.org_id, 'dlv_' || md5(e.id || ':' || w.id), w.id, e.id, ${FIRST_EVENT_SEQ}, e.object_id
    from jsonb_to_recordset(:events::jsonb) as e(id text, type text, scope text, object_id text)
    join webhook_endpoints w
      on (w.events @> array[e.type] or w.events @> array['*']) and w.read_scopes @> array[e.scope]
    where w.org_id = :org and w.enabled`;

/** The statements' texts for `n` events, made once per count (a write records at most a few). */
const TEXTS: { eventsAndEndpoints: string; deliveries: string; firstEventsCtes: string }[] = [];

function textsFor(n: number): (typeof TEXTS)[number] {
  return TEXTS[n] ??= {
    eventsAndEndpoints: `with recorded as (${eventsInsert(n)}) select ${ENDPOINTS_EXIST} as endpoints`,
    deliveries: deliveriesInsert(n, 'recorded'),
    firstEventsCtes: `events as (${eventsInsert(n)}), deliveries as (${deliveriesInsert(n, 'first')})`,
  };
}

/** `insertEvents`' first statement for `n` events that carry `h` history entries. */
function eventsHistoryAndEndpoints(n: number, h: number): string {
  const key = `${n}:${h}`;
  let text = EVENTS_HISTORY_TEXTS.get(key);
  if (text === undefined) {
    text = `with recorded as (${eventsInsert(n)}), ${historyCte(h)} select ${ENDPOINTS_EXIST} as endpoints`;
    EVENTS_HISTORY_TEXTS.set(key, text);
  }
  return text;
}

const EVENTS_HISTORY_TEXTS = new Map<string, string>();

/** The history entries the events carry, in their order. */
function historyOf(events: readonly NewEvent[]): NewHistoryEntry[] {
  return events.flatMap((e) => e.history ?? []);
}

/** An entry as the bulk statement's JSON row. */
function historyRowOf(h: NewHistoryEntry, n: number): Record<string, unknown> {
  return {
    n, id: h.id, resource: h.resource, record_id: h.recordId, person_id: h.personId, changed_at: h.changedAt?.toISOString() ?? null,
    action: h.action, actor_kind: h.actor.kind, actor_id: h.actor.id, procedure: h.procedure, request_id: h.requestId, changes: h.changes,
  };
}

/** Each entry's values as named bindings: `:history<i>Id`, `:history<i>Changes`, and so on. */
function historyBindingsOf(entries: readonly NewHistoryEntry[]): Record<string, Knex.Value> {
  const bindings: Record<string, Knex.Value> = {};
  entries.forEach((h, i) => {
    bindings[`history${i}Id`] = h.id;
    bindings[`history${i}Resource`] = h.resource;
    bindings[`history${i}Record`] = h.recordId;
    bindings[`history${i}Person`] = h.personId;
    bindings[`history${i}ChangedAt`] = h.changedAt;
    bindings[`history${i}Action`] = h.action;
    bindings[`history${i}ActorKind`] = h.actor.kind;
    bindings[`history${i}ActorId`] = h.actor.id;
    bindings[`history${i}Procedure`] = h.procedure;
    bindings[`history${i}Request`] = h.requestId;
    bindings[`history${i}Changes`] = JSON.stringify(h.changes);
  });
  return bindings;
}

/**
 * The CTE that inserts `n` history entries (historyBindingsOf's names, the statement's `:org`),
 * as a VALUES list as the events are (on Citus a router insert into the workspace's shard, in the
 * statement's one connection: one-phase commit); with `onlyWith`, only when that CTE of the
 * statement answers a row, as its events. A delete's entry has no `updatedAt` to take: it takes
 * the statement's time, as a write's `updatedAt` does. Made once per count and guard.
 */
function historyCte(n: number, onlyWith?: string): string {
  const key = `${n}:${onlyWith ?? ''}`;
  let text = HISTORY_TEXTS.get(key);
  if (text === undefined) {
    const rows = indexes(n).map((i) => `(:org, :history${i}Id, :history${i}Resource, :history${i}Record, :history${i}Person,
      coalesce(:history${i}ChangedAt::timestamptz, ${WRITE_TIME}), :history${i}Action, :history${i}ActorKind, :history${i}ActorId,
      :history${i}Procedure, :history${i}Request, :history${i}Changes::jsonb)`);
    const into = `insert into ${TABLES.recordHistory} (${HISTORY_COLUMNS})`;
    text = onlyWith === undefined
      ? `recorded_history as (${into} values ${rows.join(', ')})`
      : `recorded_history as (${into} select * from (values ${rows.join(', ')}) as h where exists (select 1 from ${onlyWith}))`;
    HISTORY_TEXTS.set(key, text);
  }
  return text;
}

const HISTORY_TEXTS = new Map<string, string>();

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
