import type { Knex } from 'knex';
import type { Db } from '../knex';
import { TABLES } from '../tables';
import { paginate } from '../paginate';
import { acrossWorkspaces } from '../across-workspaces';
import { prepared } from '../prepared-statements';
import type { PageRequest } from '../pagination';
import type { EventType } from '../../events/event-types';

/** Who acted: a key or playground token through the API, or the service itself (a webhook disabled). */
export type ActorKind = 'apiKey' | 'playgroundToken' | 'system';

/** An event as the API answers it and webhooks receive it (there, `createdAt` is ISO 8601 text). */
export interface WorkspaceEvent {
  id: string;
  type: EventType;
  createdAt: Date;
  orgId: string;
  actor: { kind: ActorKind; id: string };
  /** `object`: the resource as the API returned it after the change; some types add `from`/`to`. */
  data: Record<string, unknown>;
}

/** An event about to be recorded, with the read scope its type needs (the fan-out checks it). */
export interface NewEvent {
  orgId: string;
  id: string;
  type: string;
  scope: string;
  actor: { kind: string; id: string };
  objectId: string | null;
  /** Plain JSON: Dates already ISO 8601 text. */
  data: Record<string, unknown>;
}

export interface EventListFilters {
  /** The types to answer; the caller's scopes have already narrowed them. */
  types: readonly string[];
  /** Half-open range on the event's time: createdAfter <= created_at < createdBefore. */
  createdAfter?: Date;
  createdBefore?: Date;
}

const COLUMNS = ['id', 'type', 'created_at', 'org_id', 'actor_kind', 'actor_id', 'data'];

interface EventRow {
  id: string;
  type: EventType;
  created_at: Date;
  org_id: string;
  actor_kind: ActorKind;
  actor_id: string;
  data: Record<string, unknown>;
}

function toEvent(row: EventRow): WorkspaceEvent {
  return {
    id: row.id,
    type: row.type,
    createdAt: row.created_at,
    orgId: row.org_id,
    actor: { kind: row.actor_kind, id: row.actor_id },
    data: row.data,
  };
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
 * Inserts of `events` (all of the workspace bound as `:org`) as SQL text with named bindings,
 * for a statement to carry as CTEs: `events`, and `deliveriesOfFirstEvents`, their deliveries
 * when each is its object's first event (see FIRST_EVENT_SEQ; insertDeliveries says which
 * endpoints get one). The texts depend only on how many events there are. Used by `insertEvents`
 * below, and by a write that records its events in its own statement (the leads' createLead).
 */
export function eventInserts(events: readonly NewEvent[]): { events: string; deliveriesOfFirstEvents: string; bindings: Record<string, Knex.Value> } {
  const bindings: Record<string, Knex.Value> = {};
  for (const [i, e] of events.entries()) {
    Object.assign(bindings, {
      [`event${i}Id`]: e.id, [`event${i}Type`]: e.type, [`event${i}Scope`]: e.scope, [`event${i}ActorKind`]: e.actor.kind,
      [`event${i}ActorId`]: e.actor.id, [`event${i}Object`]: e.objectId, [`event${i}Data`]: JSON.stringify(e.data),
    });
  }
  const rows = events.map((_, i) => `(:org, :event${i}Id, :event${i}Type, :event${i}ActorKind, :event${i}ActorId, :event${i}Object, :event${i}Data::jsonb)`);
  const subscribed = events.map((_, i) => `(:event${i}Id::text, :event${i}Type::text, :event${i}Scope::text, :event${i}Object::text)`);
  return {
    events: `insert into ${TABLES.events} (org_id, id, type, actor_kind, actor_id, object_id, data) values ${rows.join(', ')}`,
    deliveriesOfFirstEvents: `insert into webhook_deliveries (org_id, id, endpoint_id, event_id, event_seq, object_id)
      select w.org_id, 'dlv_' || md5(e.id || ':' || w.id), w.id, e.id, ${FIRST_EVENT_SEQ}, e.object_id
      from webhook_endpoints w
      join (values ${subscribed.join(', ')}) as e(id, type, scope, object_id)
        on (w.events @> array[e.type] or w.events @> array['*']) and w.read_scopes @> array[e.scope]
      where w.org_id = :org and w.enabled`,
    bindings,
  };
}

/**
 * Records events, in the write's transaction (`trx`): they commit or roll back with the change.
 * Answers whether the workspace has an enabled webhook endpoint, read in the same statement: when
 * it has none (most writes), no delivery can be due and `insertDeliveries` is not needed.
 *
 * Order: each event takes the writing transaction's id (`txid`) and the next number of one
 * sequence (`seq`), both column defaults; nothing is locked, so a workspace's writers commit in
 * parallel. Readers order by (txid, seq) below a horizon (`listAfter`).
 */
export async function insertEvents(trx: Db, events: readonly NewEvent[]): Promise<{ endpoints: boolean }> {
  const orgId = onlyWorkspaceOf(events);
  const inserts = eventInserts(events);
  const { rows } = await prepared(trx, trx.raw<{ rows: { endpoints: boolean }[] }>(
    `with recorded as (${inserts.events}) select ${ENDPOINTS_EXIST} as endpoints`,
    { ...inserts.bindings, org: orgId },
  ));
  return { endpoints: rows[0]!.endpoints };
}

/**
 * One pending delivery of each of `events` (recorded earlier in this transaction) per enabled
 * webhook endpoint that subscribes to its type (or to `*`) and whose kept read scopes cover it.
 * A delivery's `event_seq` is its event's (but see FIRST_EVENT_SEQ): two writes of one object take its row lock in turn,
 * so the later one's events took later numbers, and the worker delivers an object's events in
 * that order. The events are read back by key in the workspace's shard (on Citus the statement
 * runs there alone, and the transaction commits in one phase, which the event horizon relies
 * on: docs/decisions.md, "Event order"). A delivery's id is derived from its event and endpoint,
 * which make it unique: a write may not call a volatile function on Citus.
 */
export async function insertDeliveries(trx: Db, events: readonly NewEvent[]): Promise<void> {
  const orgId = onlyWorkspaceOf(events);
  await prepared(trx, trx.raw(
    `insert into webhook_deliveries (org_id, id, endpoint_id, event_id, event_seq, object_id)
     select w.org_id, 'dlv_' || md5(e.id || ':' || w.id), w.id, e.id, e.seq, e.object_id
     from (values ${events.map(() => '(?::text, ?::text)').join(', ')}) as s(id, scope)
     join ${TABLES.events} e on e.org_id = ? and e.id = s.id
     join webhook_endpoints w on w.org_id = ? and w.enabled
       and (w.events @> array[e.type] or w.events @> array['*']) and w.read_scopes @> array[s.scope]`,
    [...events.flatMap((e) => [e.id, e.scope]), orgId, orgId],
  ));
}

/** Records events and their deliveries (insertEvents, then insertDeliveries when an endpoint may want them). */
export async function insertWithDeliveries(trx: Db, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  const { endpoints } = await insertEvents(trx, events);
  if (endpoints) await insertDeliveries(trx, events);
}

function onlyWorkspaceOf(events: readonly NewEvent[]): string {
  const orgId = events[0]?.orgId;
  if (orgId === undefined || events.some((e) => e.orgId !== orgId)) throw new Error('events: at least one, all of one workspace');
  return orgId;
}

function filteredEvents(db: Db, orgId: string, filters: EventListFilters) {
  const query = db(TABLES.events).where({ org_id: orgId }).whereIn('type', [...filters.types]);
  if (filters.createdAfter) query.where('created_at', '>=', filters.createdAfter);
  if (filters.createdBefore) query.where('created_at', '<', filters.createdBefore);
  return query;
}

/** A page of the workspace's events, newest first (the catch-up order reversed), with the exact total. */
export async function list(db: Db, orgId: string, filters: EventListFilters, page: PageRequest) {
  const { items, total } = await paginate<EventRow, WorkspaceEvent>({
    filtered: () => filteredEvents(db, orgId, filters),
    select: COLUMNS,
    orderBy: 'txid desc, seq desc',
    page,
    toItem: toEvent,
  });
  return { events: items, total };
}

/** An event's place in the catch-up order: its transaction's id, then its number. */
export interface EventPosition {
  txid: string;
  seq: string;
}

/** Where an event sits in the catch-up order; undefined when the workspace has no such event. */
export async function positionOf(db: Db, orgId: string, eventId: string): Promise<EventPosition | undefined> {
  return db(TABLES.events).where({ org_id: orgId, id: eventId }).first(db.raw('txid::text as txid'), db.raw('seq::text as seq'));
}

/**
 * The visibility horizon: every transaction with a smaller id has ended, and any that commits
 * from now on has an id at least this. Its own statement, so that on Citus it is the
 * coordinator's (where events take their txid), not the worker's that holds the shard.
 */
async function horizonOf(db: Db): Promise<string> {
  const { rows } = await db.raw<{ rows: { horizon: string }[] }>('select pg_snapshot_xmin(pg_current_snapshot())::text as horizon');
  return rows[0]!.horizon;
}

/**
 * Up to `limit` events after `position` in catch-up order (ascending), `more` when others follow.
 * Only events of transactions below the horizon, all of which have ended: one that commits later
 * has a txid at or above it, so it sorts after the last one answered here, and none is skipped.
 * The horizon is read first, so every transaction below it is visible to the read that follows.
 */
export async function listAfter(
  db: Db,
  orgId: string,
  position: EventPosition,
  filters: EventListFilters,
  limit: number,
): Promise<{ events: WorkspaceEvent[]; more: boolean }> {
  const { entries, more } = await readAfter(db, orgId, position, limit, filters);
  return { events: entries.map((entry) => entry.event), more };
}

/** An event with its place in the catch-up order (a live reader compares places). */
export interface PlacedEvent {
  event: WorkspaceEvent;
  position: EventPosition;
}

/**
 * listAfter for a live reader: each event with its position, and `heldBack` when events after
 * the last one answered have committed but sit at or above the horizon (an older transaction is
 * still open): they are answered by a later read, which the reader should make soon. The rows
 * above the horizon are read in the same statement, after the others in its order, so knowing
 * costs nothing more.
 */
export async function readAfter(
  db: Db,
  orgId: string,
  position: EventPosition,
  limit: number,
  filters?: EventListFilters,
): Promise<{ entries: PlacedEvent[]; more: boolean; heldBack: boolean }> {
  const horizon = await horizonOf(db);
  const query = filters ? filteredEvents(db, orgId, filters) : db(TABLES.events).where({ org_id: orgId });
  const rows: (EventRow & { txid: string; seq: string; held: boolean })[] = await query
    .whereRaw('(txid, seq) > (?::xid8, ?::bigint)', [position.txid, position.seq])
    // Qualified: a bare `txid` in ORDER BY names the selected text alias, and text sorts 1000 before 999.
    .orderBy([{ column: `${TABLES.events}.txid` }, { column: `${TABLES.events}.seq` }])
    .limit(limit + 1)
    .select([...COLUMNS, db.raw('txid::text as txid'), db.raw('seq::text as seq'), db.raw('txid >= ?::xid8 as held', [horizon])]);
  const visible = rows.findIndex((row) => row.held);
  const below = visible === -1 ? rows : rows.slice(0, visible);
  const entries = below.slice(0, limit).map((row) => ({ event: toEvent(row), position: { txid: row.txid, seq: row.seq } }));
  return { entries, more: below.length > limit, heldBack: visible !== -1 };
}

/** Where a reader starting now begins: after every event committed so far, before any still to commit. */
export async function currentPosition(db: Db): Promise<EventPosition> {
  return { txid: await horizonOf(db), seq: '0' };
}

/** Whether `a` comes after `b` in catch-up order. */
export function isAfter(a: EventPosition, b: EventPosition): boolean {
  const [ta, tb] = [BigInt(a.txid), BigInt(b.txid)];
  return ta > tb || (ta === tb && BigInt(a.seq) > BigInt(b.seq));
}

/** The earliest catch-up position: before every event. */
export const BEFORE_ALL_EVENTS: EventPosition = { txid: '0', seq: '0' };

/**
 * Deletes up to `batchSize` events older than `cutoff` (their deliveries and attempts go with
 * them), of every workspace; answers how many. Small batches keep each transaction, and its
 * locks, short.
 */
export async function purgeOlderThan(db: Db, cutoff: Date, batchSize: number): Promise<number> {
  const result = await acrossWorkspaces(db, (trx) => trx.raw(
    `delete from events where (org_id, id) in (select org_id, id from events where created_at < ? limit ?)`,
    [cutoff, batchSize],
  ));
  return result.rowCount ?? 0;
}
