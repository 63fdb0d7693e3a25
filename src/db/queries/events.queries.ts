import type { Knex } from 'knex';
import type { Db } from '../knex';
import { TABLES } from '../tables';
import { paginate } from '../paginate';
import { prepared } from '../prepared-statements';
import type { PageRequest } from '../pagination';

/** An event as the API answers it and webhooks receive it (there, `createdAt` is ISO 8601 text). */
export interface WorkspaceEvent {
  id: string;
  type: string;
  createdAt: Date;
  orgId: string;
  actor: { kind: string; id: string };
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
  type: string;
  created_at: Date;
  org_id: string;
  actor_kind: string;
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
 * Records events and, in the same statement, one pending delivery per enabled webhook endpoint
 * that subscribes to the type (or to `*`) and whose kept read scopes cover it. Run it inside the
 * write's transaction: the events commit or roll back with the change. Prepared: its plan does
 * not depend on the values, and planning it took longer than running it.
 */
export async function insertWithDeliveries(trx: Db, events: readonly NewEvent[], alongside?: Knex.QueryBuilder): Promise<void> {
  if (events.length === 0) {
    if (alongside) await alongside;
    return;
  }
  const rows = events.map((e) => ({
    org_id: e.orgId, id: e.id, type: e.type, scope: e.scope, actor_kind: e.actor.kind, actor_id: e.actor.id, object_id: e.objectId, data: e.data,
  }));
  // `alongside` (a write whose effects these events announce) runs as a CTE of this statement: one
  // round trip for both. PostgreSQL runs a data-modifying CTE to completion even if nothing reads it.
  const bindings = alongside ? [alongside, JSON.stringify(rows)] : [JSON.stringify(rows)];
  await prepared(trx, trx.raw(
    `${alongside ? 'with alongside as (?), ' : 'with '}given as (
       select * from rows from (jsonb_to_recordset(?::jsonb)
         as (org_id text, id text, type text, scope text, actor_kind text, actor_id text, object_id text, data jsonb))
         with ordinality as x(org_id, id, type, scope, actor_kind, actor_id, object_id, data, n)
     ),
     inserted as (
       insert into events (org_id, id, type, actor_kind, actor_id, object_id, data)
       select org_id, id, type, actor_kind, actor_id, object_id, data from given order by n
       returning org_id, id, seq, type, object_id
     )
     insert into webhook_deliveries (org_id, id, endpoint_id, event_id, event_seq, object_id)
     select i.org_id, 'dlv_' || replace(gen_random_uuid()::text, '-', ''), w.id, i.id, i.seq, i.object_id
     from inserted i
     join given g on g.id = i.id
     join webhook_endpoints w on w.org_id = i.org_id and w.enabled
       and (w.events @> array[i.type] or w.events @> array['*'])
       and w.read_scopes @> array[g.scope]`,
    bindings,
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
    orderBy: 'txid desc, seq desc',
    page,
    toItem: toEvent,
  });
  return { events: items, total };
}

/** Where an event sits in the catch-up order; undefined when the workspace has no such event. */
export async function positionOf(db: Db, orgId: string, eventId: string): Promise<{ txid: string; seq: string } | undefined> {
  return db(TABLES.events).where({ org_id: orgId, id: eventId }).first(db.raw('txid::text as txid'), db.raw('seq::text as seq'));
}

/**
 * Up to `limit` events after `position` in catch-up order (ascending), `more` when others follow.
 * Only events of transactions older than every running one are answered (see the migration):
 * an event committed later always sorts after the last one answered here, so none is skipped.
 */
export async function listAfter(
  db: Db,
  orgId: string,
  position: { txid: string; seq: string },
  filters: EventListFilters,
  limit: number,
): Promise<{ events: WorkspaceEvent[]; more: boolean }> {
  const rows: EventRow[] = await filteredEvents(db, orgId, filters)
    .whereRaw('(txid, seq) > (?::xid8, ?::bigint)', [position.txid, position.seq])
    .whereRaw('txid < pg_snapshot_xmin(pg_current_snapshot())')
    .orderBy([{ column: 'txid' }, { column: 'seq' }])
    .limit(limit + 1)
    .select(COLUMNS);
  return { events: rows.slice(0, limit).map(toEvent), more: rows.length > limit };
}

/** The earliest catch-up position: before every event. */
export const BEFORE_ALL_EVENTS = { txid: '0', seq: '0' } as const;

/**
 * Deletes up to `batchSize` events older than `cutoff` (their deliveries and attempts go with
 * them); answers how many. Small batches keep each transaction, and its locks, short.
 */
export async function purgeOlderThan(db: Db, cutoff: Date, batchSize: number): Promise<number> {
  const result = await db.raw(
    `delete from events where ctid in (select ctid from events where created_at < ? limit ?)`,
    [cutoff, batchSize],
  );
  return result.rowCount ?? 0;
}
