import type { Knex } from 'knex';
import type { Db } from '../knex';
import { TABLES, WRITE_TIME } from '../tables';
import { prepared } from '../prepared-statements';
import { ENTRY_COLUMNS, type HistoryResource } from '../history';

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
// Each form also writes the change history of leads, contacts and clients (src/db/history) in
// its first statement, as one more CTE (`historyCte`): the entries its events carry
// (`NewEvent.history`: changes, deletes, restores), so the history costs a write no statement and
// no round trip. A creation's entry is its `<noun>.created` event itself while the event is kept
// (src/db/history reads it there, and the events' purge moves it into record_history): a create
// writes no history row. So every event keeps its call's procedure and request id, and (tracing
// on) the traceparent of its call's span, which its deliveries' spans link to.

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
  /** The call that records it (a procedure's: its history entries name its procedure and request id), or null. */
  call: { procedure: string; requestId: string | null; traceParent?: string | null } | null;
  /**
   * The history entries of the write this event announces, written with it (record_history): a
   * change's, delete's or restore's. A creation's is its `<noun>.created` event (src/db/history).
   */
  history?: readonly NewHistoryEntry[];
}

/** One entry of a record's change history (record_history's row), written with its event (actor, call). */
export interface NewHistoryEntry {
  id: string;
  resource: HistoryResource;
  recordId: string;
  /** The record's new `updatedAt` (its versions' order); null: the writing statement's time (a delete, a restore). */
  changedAt: Date | null;
  action: 'updated' | 'deleted' | 'restored';
  /** `{field: {from, to}}`, fields as the API names them, values as plain JSON. */
  changes: Record<string, { from: unknown; to: unknown }>;
}

/** The events' columns, in the order the inserts give them. */
const INSERTED_EVENT_COLUMNS = 'org_id, id, type, actor_kind, actor_id, object_id, data, procedure, request_id, trace_parent';

/** record_history's columns, in the order the history inserts give them. */
const HISTORY_COLUMNS = `org_id, ${ENTRY_COLUMNS}`;

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
  const shape = shapeOf(events);
  const bindings = bindingsOf(events);
  const texts = textsFor(events.length);
  const first = !makesHistory(shape) ? texts.eventsAndEndpoints : cached(shape, 'recorded', () =>
    `with recorded as (${eventsInsert(events.length)}), ${historyCte(shape)} select ${ENDPOINTS_EXIST} as endpoints`);
  const { rows } = await prepared(trx, trx.raw<{ rows: { endpoints: boolean }[] }>(first, bindings));
  if (rows[0]!.endpoints) await prepared(trx, trx.raw(texts.deliveries, bindings));
}

/**
 * `insertEvents` as CTE text (`events as (...), deliveries as (...)`, to follow a statement's own
 * CTEs) with its named bindings, for a write that creates the events' objects in one statement;
 * every event must be its object's first (FIRST_EVENT_SEQ). The statement binds the workspace as
 * `:org`. The text depends only on how many events there are and what history they make. With
 * `onlyWith` (leads.upsert's create, whose lead is not inserted when another holds its external
 * id), the events, their deliveries and history are inserted only when the statement's CTE
 * `onlyWith` answers a row.
 */
export function firstEventsCtes(events: readonly NewEvent[], onlyWith?: string): { sql: string; bindings: Record<string, Knex.Value> } {
  const shape = shapeOf(events, onlyWith);
  const bindings = bindingsOf(events);
  if (onlyWith === undefined && !makesHistory(shape)) return { sql: textsFor(events.length).firstEventsCtes, bindings };
  const sql = cached(shape, 'first', () => {
    const guard = onlyWith === undefined ? '' : ` and exists (select 1 from ${onlyWith})`;
    const events = `events as (${eventsInsert(shape.events, onlyWith)}), deliveries as (${deliveriesInsert(shape.events, 'first')}${guard})`;
    return makesHistory(shape) ? `${events}, ${historyCte(shape)}` : events;
  });
  return { sql, bindings };
}

/**
 * `insertEvents` as CTE text for a write that changes existing objects in one statement of its
 * own (leads.upsert's change of a lead it saw: src/db/leads/upsert.ts): the events are inserted
 * only when the statement's CTE `onlyWith` answers a row, and their deliveries take the numbers
 * the events took from the insert's RETURNING (the statement cannot read its own inserts back).
 * The statement binds the workspace as `:org`.
 */
export function changeEventsCtes(events: readonly NewEvent[], onlyWith: string): { sql: string; bindings: Record<string, Knex.Value> } {
  const shape = shapeOf(events, onlyWith);
  const sql = cached(shape, 'change', () => {
    const ctes = `recorded_events as (${eventsInsert(shape.events, onlyWith)} returning id, seq), `
      + `recorded_deliveries as (${deliveriesInsert(shape.events, 'returned')})`;
    return makesHistory(shape) ? `${ctes}, ${historyCte(shape)}` : ctes;
  });
  return { sql, bindings: bindingsOf(events) };
}

/**
 * `insertEvents` for many events at once, each its object's first (FIRST_EVENT_SEQ): an import's
 * batch, the contact.created and lead.created of each lead it creates. The events come from one
 * JSON array and are inserted in its order (their `seq` follows it), with the history entries
 * they carry from another; their deliveries only when the workspace has an enabled endpoint. Two
 * statements whatever the count, of one text each.
 */
export async function insertFirstEventsInBulk(trx: Knex.Transaction, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  const bindings = {
    org: onlyWorkspaceOf(events),
    events: JSON.stringify(events.map((e, n) => ({
      n, id: e.id, type: e.type, scope: e.scope, actor_kind: e.actor.kind, actor_id: e.actor.id, object_id: e.objectId, data: e.data,
    }))),
    history: JSON.stringify(events.flatMap((e) => (e.history ?? []).map((h) => ({
      id: h.id, resource: h.resource, record_id: h.recordId, changed_at: h.changedAt?.toISOString() ?? null,
      action: h.action, actor_kind: e.actor.kind, actor_id: e.actor.id, changes: h.changes,
    })))),
    ...callBindingsOf(events),
  };
  const { rows } = await trx.raw<{ rows: { endpoints: boolean }[] }>(BULK_EVENTS, bindings);
  if (rows[0]!.endpoints) await trx.raw(BULK_DELIVERIES, bindings);
}

/** How many events a statement inserts, the history entries they carry, and its guard: what its text depends on. */
interface Shape {
  events: number;
  /** How many entries the events carry (changes, deletes, restores). */
  entries: number;
  onlyWith: string | undefined;
}

function shapeOf(events: readonly NewEvent[], onlyWith?: string): Shape {
  let entries = 0;
  for (const e of events) if (e.history !== undefined) entries += e.history.length;
  return { events: events.length, entries, onlyWith };
}

const makesHistory = (shape: Shape) => shape.entries > 0;

/** Texts made once per form and shape (a write records a few events of a few kinds). */
const SHAPED_TEXTS = new Map<string, string>();

function cached(shape: Shape, form: string, make: () => string): string {
  const key = `${form}:${shape.events}:${shape.entries}:${shape.onlyWith ?? ''}`;
  let text = SHAPED_TEXTS.get(key);
  if (text === undefined) SHAPED_TEXTS.set(key, text = make());
  return text;
}

/**
 * The CTE that inserts the history entries the statement's events carry (`:history<i>...`). One
 * VALUES list of bound values, as the events are: on Citus a router insert into the workspace's
 * shard in the statement's one connection (one-phase commit), where an INSERT ... SELECT from the
 * events CTE would go through the coordinator. Every entry's actor, procedure and request id are
 * its statement's (one call's events). With `onlyWith`, only when that CTE answers a row.
 */
function historyCte(shape: Shape): string {
  const common = ':event0ActorKind, :event0ActorId, :callProcedure, :callRequest';
  const rows = indexes(shape.entries).map((i) => `(:org, :history${i}Id, :history${i}Resource, :history${i}Record,
      coalesce(:history${i}ChangedAt::timestamptz, ${WRITE_TIME}), :history${i}Action, ${common}, :history${i}Changes::jsonb)`);
  const into = `insert into ${TABLES.recordHistory} (${HISTORY_COLUMNS})`;
  return shape.onlyWith === undefined
    ? `recorded_history as (${into} values ${rows.join(', ')})`
    : `recorded_history as (${into} select * from (values ${rows.join(', ')}) as h where exists (select 1 from ${shape.onlyWith}))`;
}

/** The bulk form's insert: the events and the history entries they carry (`:history`). */
const BULK_EVENTS = `with recorded as (
    insert into ${TABLES.events} (${INSERTED_EVENT_COLUMNS})
    select :org, e.id, e.type, e.actor_kind, e.actor_id, e.object_id, e.data, :callProcedure, :callRequest, :callTrace
    from jsonb_to_recordset(:events::jsonb) as e(n int, id text, type text, actor_kind text, actor_id text, object_id text, data jsonb)
    order by e.n
  ), recorded_history as (
    insert into ${TABLES.recordHistory} (${HISTORY_COLUMNS})
    select :org, h.id, h.resource, h.record_id, coalesce(h.changed_at, ${WRITE_TIME}), h.action, h.actor_kind, h.actor_id,
      :callProcedure, :callRequest, h.changes
    from jsonb_to_recordset(:history::jsonb) as h(id text, resource text, record_id text,
      changed_at timestamptz, action text, actor_kind text, actor_id text, changes jsonb)
  ) select ${ENDPOINTS_EXIST} as endpoints`;

/** `deliveriesInsert`'s matching, for the events of a JSON array (each its object's first). */
const BULK_DELIVERIES = `insert into webhook_deliveries (org_id, id, endpoint_id, event_id, event_seq, object_id)
    select w.org_id, 'dlv_' || md5(e.id || ':' || w.id), w.id, e.id, ${FIRST_EVENT_SEQ}, e.object_id
    from jsonb_to_recordset(:events::jsonb) as e(id text, type text, scope text, object_id text)
    join webhook_endpoints w
      on (w.events @> array[e.type] or w.events @> array['*']) and w.read_scopes @> array[e.scope]
    where w.org_id = :org and w.enabled`;

/** The statements' texts for `n` events that make no history, made once per count (a write records at most a few). */
const TEXTS: { eventsAndEndpoints: string; deliveries: string; firstEventsCtes: string }[] = [];

function textsFor(n: number): (typeof TEXTS)[number] {
  return TEXTS[n] ??= {
    eventsAndEndpoints: `with recorded as (${eventsInsert(n)}) select ${ENDPOINTS_EXIST} as endpoints`,
    deliveries: deliveriesInsert(n, 'recorded'),
    firstEventsCtes: `events as (${eventsInsert(n)}), deliveries as (${deliveriesInsert(n, 'first')})`,
  };
}

/**
 * The events' and their history entries' values as named bindings: `:event<i>Id`,
 * `:history<i>Changes` and so on, with the workspace as `:org` and the call's `:callProcedure`,
 * `:callRequest` and `:callTrace`.
 */
function bindingsOf(events: readonly NewEvent[]): Record<string, Knex.Value> {
  const bindings: Record<string, Knex.Value> = { org: onlyWorkspaceOf(events), ...callBindingsOf(events) };
  let h = 0;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    bindings[`event${i}Id`] = e.id;
    bindings[`event${i}Type`] = e.type;
    bindings[`event${i}Scope`] = e.scope;
    bindings[`event${i}ActorKind`] = e.actor.kind;
    bindings[`event${i}ActorId`] = e.actor.id;
    bindings[`event${i}Object`] = e.objectId;
    bindings[`event${i}Data`] = JSON.stringify(e.data);
    if (e.history === undefined) continue;
    for (const entry of e.history) {
      bindings[`history${h}Id`] = entry.id;
      bindings[`history${h}Resource`] = entry.resource;
      bindings[`history${h}Record`] = entry.recordId;
      bindings[`history${h}ChangedAt`] = entry.changedAt;
      bindings[`history${h}Action`] = entry.action;
      bindings[`history${h}Changes`] = JSON.stringify(entry.changes);
      h++;
    }
  }
  return bindings;
}

/** The call the events record (their procedure, request id and traceparent, and their history entries'): all one call's. */
function callBindingsOf(events: readonly NewEvent[]): { callProcedure: string | null; callRequest: string | null; callTrace: string | null } {
  const call = events[0]!.call;
  return { callProcedure: call?.procedure ?? null, callRequest: call?.requestId ?? null, callTrace: call?.traceParent ?? null };
}

const indexes = (n: number) => Array.from({ length: n }, (_, i) => i);

/** The insert of `n` events; with `onlyWith`, only when that CTE of the statement answers a row. */
function eventsInsert(n: number, onlyWith?: string): string {
  const rows = indexes(n).map((i) => `(:org, :event${i}Id, :event${i}Type, :event${i}ActorKind, :event${i}ActorId, :event${i}Object, :event${i}Data::jsonb,
      :callProcedure, :callRequest, :callTrace)`);
  const into = `insert into ${TABLES.events} (${INSERTED_EVENT_COLUMNS})`;
  if (onlyWith) return `${into} select * from (values ${rows.join(', ')}) as e where exists (select 1 from ${onlyWith})`;
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

/** The workspace of a statement's events: all one call's, so one workspace, one actor. */
function onlyWorkspaceOf(events: readonly NewEvent[]): string {
  const { orgId, actor } = events[0]!;
  if (events.some((e) => e.orgId !== orgId || e.actor.id !== actor.id)) throw new Error('events: all of one call (one workspace, one actor)');
  return orgId;
}
