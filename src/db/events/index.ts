import type { Db } from '../knex';
import { TABLES } from '../tables';
import { paginate } from '../paginate';
import { acrossWorkspaces } from '../across-workspaces';
import * as history from '../history';
import { EVENTS_NAMED, eventsNamedBindings } from './keys';
import type { PageRequest } from '../pagination';
import type { ActorKind, EventType } from '../../domain/event-types';

// The workspace's recorded events, read: a page, a position, the catch-up after one, the purge.
// They are written by one helper only (record.ts, `insertEvents` and, for a write that creates
// its objects in one statement, `firstEventsCtes`), from rows built above the data layer.
export { insertEvents, insertFirstEventsInBulk, firstEventsCtes, changeEventsCtes, type NewEvent, type NewHistoryEntry } from './record';
export type { ActorKind } from '../../domain/event-types';

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

export interface EventListFilters {
  /** The types to answer; the caller's scopes have already narrowed them. */
  types: readonly string[];
  /** Half-open range on the event's time: createdAfter <= created_at < createdBefore. */
  createdAfter?: Date;
  createdBefore?: Date;
}

export const EVENT_COLUMNS = ['id', 'type', 'created_at', 'org_id', 'actor_kind', 'actor_id', 'data'];

export interface EventRow {
  id: string;
  type: EventType;
  created_at: Date;
  org_id: string;
  actor_kind: ActorKind;
  actor_id: string;
  data: Record<string, unknown>;
}

export function toEvent(row: EventRow): WorkspaceEvent {
  return {
    id: row.id,
    type: row.type,
    createdAt: row.created_at,
    orgId: row.org_id,
    actor: { kind: row.actor_kind, id: row.actor_id },
    data: row.data,
  };
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
    select: EVENT_COLUMNS,
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
    .select([...EVENT_COLUMNS, db.raw('txid::text as txid'), db.raw('seq::text as seq'), db.raw('txid >= ?::xid8 as held', [horizon])]);
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
 * them), of every workspace; answers how many. The creations among them are first kept in the
 * change history (src/db/history, `keepCreations`), in the same transaction: a crash keeps both or
 * neither; two purges at once may pick the same events, and only write and delete them once. Small
 * batches keep each transaction, and its locks, short.
 */
export async function purgeOlderThan(db: Db, cutoff: Date, batchSize: number): Promise<number> {
  return acrossWorkspaces(db, async (trx) => {
    const { rows } = await trx.raw<{ rows: { org_id: string; id: string }[] }>(
      'select org_id, id from events where created_at < ? limit ?', [cutoff, batchSize],
    );
    if (rows.length === 0) return 0;
    const [orgIds, ids] = [rows.map((r) => r.org_id), rows.map((r) => r.id)];
    await history.keepCreations(trx, orgIds, ids);
    const result = await trx.raw(`delete from events where ${EVENTS_NAMED('events')}`, eventsNamedBindings(orgIds, ids));
    return result.rowCount ?? 0;
  });
}
