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

/**
 * Records events and one pending delivery per enabled webhook endpoint that subscribes to the
 * type (or to `*`) and whose kept read scopes cover it. Run it inside the write's transaction:
 * the events commit or roll back with the change.
 *
 * Order: each event takes the next numbers of its workspace's counter (event_sequences). The
 * counter row stays locked until the transaction ends, so a workspace's events commit in
 * sequence order and a reader paging by `seq` never passes one that commits later. (Transaction
 * ids cannot order them on Citus, where each shard has its own.)
 *
 * Three statements, each naming the workspace in every table, so on Citus each runs in the
 * workspace's shard group alone and the transaction commits there in one phase. (As one statement
 * of CTEs, Citus ran its parts through the coordinator and committed on every worker in two
 * phases, holding the counter's lock throughout.) A delivery's id is derived from its event and
 * endpoint, which make it unique: a write may not call a volatile function on Citus.
 */
export async function insertWithDeliveries(trx: Db, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  const orgId = events[0]!.orgId;
  if (events.some((e) => e.orgId !== orgId)) throw new Error('insertWithDeliveries: every event must be of one workspace');
  const { rows: [counter] } = await prepared(trx, trx.raw<{ rows: { last_seq: string }[] }>(
    `insert into event_sequences as s (org_id, last_seq) values (?, ?)
     on conflict (org_id) do update set last_seq = s.last_seq + excluded.last_seq
     returning last_seq`,
    [orgId, events.length],
  ));
  const first = BigInt(counter!.last_seq) - BigInt(events.length) + 1n;
  const seqs = events.map((_, i) => String(first + BigInt(i)));
  await trx(TABLES.events).insert(events.map((e, i) => ({
    org_id: orgId, id: e.id, seq: seqs[i], type: e.type, actor_kind: e.actor.kind, actor_id: e.actor.id, object_id: e.objectId, data: e.data,
  })));
  await prepared(trx, trx.raw(
    `insert into webhook_deliveries (org_id, id, endpoint_id, event_id, event_seq, object_id)
     select w.org_id, 'dlv_' || md5(e.id || ':' || w.id), w.id, e.id, e.seq, e.object_id
     from webhook_endpoints w
     join (values ${events.map(() => '(?::text, ?::bigint, ?::text, ?::text, ?::text)').join(', ')}) as e(id, seq, type, scope, object_id)
       on (w.events @> array[e.type] or w.events @> array['*']) and w.read_scopes @> array[e.scope]
     where w.org_id = ? and w.enabled`,
    [...events.flatMap((e, i) => [e.id, seqs[i]!, e.type, e.scope, e.objectId]), orgId],
  ));
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
    orderBy: 'seq desc',
    page,
    toItem: toEvent,
  });
  return { events: items, total };
}

/** Where an event sits in the catch-up order; undefined when the workspace has no such event. */
export async function positionOf(db: Db, orgId: string, eventId: string): Promise<{ seq: string } | undefined> {
  return db(TABLES.events).where({ org_id: orgId, id: eventId }).first(db.raw('seq::text as seq'));
}

/**
 * Up to `limit` events after `position` in catch-up order (ascending), `more` when others follow.
 * A workspace's events commit in `seq` order (insertWithDeliveries), so one committed later
 * always sorts after the last one answered here, and none is skipped.
 */
export async function listAfter(
  db: Db,
  orgId: string,
  position: { seq: string },
  filters: EventListFilters,
  limit: number,
): Promise<{ events: WorkspaceEvent[]; more: boolean }> {
  const rows: EventRow[] = await filteredEvents(db, orgId, filters)
    .where('seq', '>', position.seq)
    .orderBy('seq')
    .limit(limit + 1)
    .select(COLUMNS);
  return { events: rows.slice(0, limit).map(toEvent), more: rows.length > limit };
}

/** The earliest catch-up position: before every event. */
export const BEFORE_ALL_EVENTS = { seq: '0' } as const;

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
