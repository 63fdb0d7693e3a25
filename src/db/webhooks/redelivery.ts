import type { Db } from '../knex';
import { longStatementRows } from '../knex';
import { TABLES } from '../tables';
import type { ClaimedDelivery } from './deliveries';

// webhooks.redeliver's SQL. One delivery row per (endpoint, event): its id is derived from both
// ('dlv_' || md5(event id || ':' || endpoint id), as src/db/events/record.ts makes it at event
// time), so the primary key (org_id, id) is that uniqueness, and queueing again is an upsert on it.

/** What deciding an endpoint's access to an event type needs (src/webhooks/delivery-access.ts). */
export type EndpointAccess = Pick<ClaimedDelivery, 'readScopes' | 'ownerKind' | 'ownerId' | 'ownerKey'> & { events: string[]; enabled: boolean };

/**
 * The endpoint's subscriptions and its owner's authority as they stand. Not locked: the queueing
 * statement runs on its own with the long timeout, and access is checked again at every attempt.
 */
export async function endpointAccess(trx: Db, orgId: string, endpointId: string): Promise<EndpointAccess | undefined> {
  const row = await trx(`${TABLES.webhookEndpoints} as w`)
    .leftJoin(`${TABLES.apiKeys} as k`, (on) => on.on('k.org_id', 'w.org_id').andOn('k.id', 'w.owner_id').andOn(trx.raw("w.owner_kind = 'apiKey'")))
    .where({ 'w.org_id': orgId, 'w.id': endpointId })
    .first(
      'w.events', 'w.enabled', 'w.read_scopes', 'w.owner_kind', 'w.owner_id', 'k.id as key_id', 'k.scopes as key_scopes',
      trx.raw('k.revoked_at is not null as key_revoked'), trx.raw('coalesce(k.expires_at <= now(), false) as key_expired'),
    );
  if (!row) return undefined;
  return {
    events: row.events,
    enabled: row.enabled,
    readScopes: row.read_scopes,
    ownerKind: row.owner_kind,
    ownerId: row.owner_id,
    ownerKey: row.key_id ? { revoked: row.key_revoked, expired: row.key_expired, scopes: row.key_scopes ?? [] } : null,
  };
}

/** The given events of the workspace, with their types; ids of other workspaces' (or no) events are absent. */
export async function eventTypesOf(db: Db, orgId: string, eventIds: readonly string[]): Promise<Map<string, string>> {
  const rows: { id: string; type: string }[] = await db(TABLES.events).where({ org_id: orgId }).whereIn('id', [...eventIds]).select('id', 'type');
  return new Map(rows.map((r) => [r.id, r.type]));
}

/** What queueing an event again does to its delivery row (upsert on the derived id), as SQL text; `?`s: the endpoint id twice. */
const UPSERT = `insert into ${TABLES.webhookDeliveries} as d (org_id, id, endpoint_id, event_id, event_seq, object_id)
       select e.org_id, 'dlv_' || md5(e.id || ':' || ?::text), ?::text, e.id, e.seq, e.object_id`;

/**
 * A delivery row is made for an event that never had one, and an existing one is made pending and
 * due now with a fresh retry budget (`retry_base`: its attempts so far). A delivery still pending
 * keeps its lease and budget and only becomes due now: an attempt in flight is not cut short.
 * "Now" is the proposed row's default: Citus allows no function that is not IMMUTABLE in DO UPDATE SET.
 */
const ON_CONFLICT = `on conflict (org_id, id) do update set
         status = 'pending',
         next_attempt_at = excluded.next_attempt_at,
         completed_at = null,
         retry_base = case when d.status = 'pending' then d.retry_base else d.attempts end`;

/** The given events (all of the workspace, checked by the caller), in one statement; answers how many were queued. */
export async function queueEvents(db: Db, orgId: string, endpointId: string, eventIds: readonly string[]): Promise<number> {
  const { rows } = await db.raw<{ rows: { queued: number }[] }>(
    `with queued as (
       ${UPSERT}
       from ${TABLES.events} e where e.org_id = ? and e.id = any(?::text[])
       ${ON_CONFLICT}
       returning 1
     )
     select count(*)::int as queued from queued`,
    [endpointId, endpointId, orgId, [...eventIds]],
  );
  return rows[0]!.queued;
}

/** Events read per statement of a range redelivery: about a second's work each (docs/performance.md, "Webhook redelivery"). */
const RANGE_CHUNK = 10_000;

/**
 * Every event of the given types recorded since `since`, queued in chunks of RANGE_CHUNK events
 * in the events' own order (txid, seq: the index events_org_order_idx), each chunk a statement and
 * a transaction of its own with the long timeout: a million events are about a hundred short
 * statements, not one that no timeout would allow, and the worker starts on the first chunks
 * while later ones are queued. The first statement finds where the range starts. A simple query
 * takes no array values, so the types go as one comma-separated text (no type holds a comma).
 * Answers how many deliveries were queued.
 */
export async function queueEventsSince(db: Db, orgId: string, endpointId: string, since: Date, types: readonly string[]): Promise<number> {
  const chosen = `e.created_at >= ?::timestamptz and e.type = any(string_to_array(?, ','))`;
  const [start] = await longStatementRows<{ txid: string; seq: string }>(db, db.raw(
    `select e.txid::text as txid, e.seq::text as seq from ${TABLES.events} e where e.org_id = ? and ${chosen} order by e.txid, e.seq limit 1`,
    [orgId, since, types.join(',')],
  ));
  if (!start) return 0;
  let from = start;
  let after = '>=';
  let queued = 0;
  for (;;) {
    const [row] = await longStatementRows<{ queued: number; read: number; last_txid: string | null; last_seq: string | null }>(db, db.raw(
      `with chunk as materialized (
         select e.org_id, e.id, e.seq, e.txid, e.object_id, e.created_at, e.type from ${TABLES.events} e
         where e.org_id = ? and (e.txid, e.seq) ${after} (?::xid8, ?::bigint)
         order by e.txid, e.seq limit ?
       ),
       queued as (
         ${UPSERT}
         from chunk e where ${chosen}
         ${ON_CONFLICT}
         returning 1
       ),
       -- Other names than the columns': ORDER BY would take an output alias, and sort the text.
       last as (select c.txid::text as last_txid, c.seq::text as last_seq from chunk c order by c.txid desc, c.seq desc limit 1)
       select (select count(*)::int from queued) as queued, (select count(*)::int from chunk) as read, last.last_txid, last.last_seq
       from (select 1) one left join last on true`,
      [orgId, from.txid, from.seq, RANGE_CHUNK, endpointId, endpointId, since, types.join(',')],
    ));
    queued += row!.queued;
    if (row!.read < RANGE_CHUNK) return queued;
    from = { txid: row!.last_txid!, seq: row!.last_seq! };
    after = '>';
  }
}
