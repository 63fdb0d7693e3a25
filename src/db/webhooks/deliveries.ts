import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../knex';
import { TABLES, NEXT_UPDATED_AT } from '../tables';
import { acrossWorkspaces } from '../across-workspaces';

/** A delivery a worker holds a lease on, with everything its POST and its access check need. */
export interface ClaimedDelivery {
  orgId: string;
  id: string;
  endpointId: string;
  /** This attempt's number (attempts counts claims, so a worker killed mid-request used one). */
  attempt: number;
  /** `attempts` when webhooks.redeliver last queued it (0 before): its retry budget counts from there. */
  retryBase: number;
  /** Settling the delivery requires it: a lease that expired and was claimed again has another. */
  claimToken: string;
  /** `traceParent`: the span of the call that recorded the event (tracing was on then), which the delivery's span links to. */
  event: { id: string; type: string; createdAt: Date; actorKind: string; actorId: string; data: Record<string, unknown>; traceParent?: string | null };
  url: string;
  /** The current secret, then the rotated-out one while it is still valid. */
  secrets: string[];
  readScopes: string[];
  ownerKind: string;
  ownerId: string;
  /** The owning API key as it stands now (ownerKind 'apiKey'); null when it no longer exists. */
  ownerKey: { revoked: boolean; expired: boolean; scopes: string[] } | null;
}

export interface ClaimOptions {
  limit: number;
  leaseMs: number;
  /** Only these workspaces' deliveries; all when absent. */
  orgIds?: readonly string[];
}

/**
 * Leases up to `limit` due deliveries. Due: pending, its time come, not leased (or the lease
 * expired), its endpoint enabled, and no earlier event of the same object still pending for the
 * same endpoint (receivers see an object's events in order, a retry included).
 *
 * Two steps, because a lock cannot be taken across shards on Citus: which workspaces have due
 * deliveries, earliest first (a read across workspaces, without locks), then a claim in each
 * workspace's shard group. Fair across workspaces: each of them is first offered an equal share of
 * the `limit` (at least one), and only then are the slots left filled, earliest workspace first;
 * so a workspace with a million deliveries queued (a redelivery) takes its share of each turn and
 * never holds back another's single event.
 */
export async function claimDue(db: Db, options: ClaimOptions): Promise<ClaimedDelivery[]> {
  const orgIds = await workspacesWithDueDeliveries(db, options);
  if (orgIds.length === 0) return [];
  const share = Math.max(1, Math.floor(options.limit / orgIds.length));
  const claimed: ClaimedDelivery[] = [];
  const more: string[] = [];
  for (const orgId of orgIds) {
    const room = Math.min(share, options.limit - claimed.length);
    if (room <= 0) break;
    const got = await claimDueIn(db, orgId, room, options.leaseMs);
    claimed.push(...got);
    if (got.length === room) more.push(orgId);
  }
  for (const orgId of more) {
    if (claimed.length >= options.limit) break;
    claimed.push(...(await claimDueIn(db, orgId, options.limit - claimed.length, options.leaseMs)));
  }
  return claimed;
}

/**
 * Up to `limit` workspaces with a due delivery, the longest waiting first. One probe of the due
 * index per workspace (`exists` and `min` both stop at the first due row of the workspace's
 * range), so a turn costs the same with a million deliveries queued as with ten: a GROUP BY over
 * the due rows, as before, read every one of them at every turn. Correlated on the distribution
 * column, so Citus runs it in each shard.
 */
async function workspacesWithDueDeliveries(db: Db, options: ClaimOptions): Promise<string[]> {
  const orgFilter = options.orgIds ? 'and o.id = any(?::text[])' : '';
  const result = await acrossWorkspaces(db, (trx) => trx.raw(
    `select org_id from (
       select o.id as org_id, (
         select min(d.next_attempt_at) from webhook_deliveries d
         where d.org_id = o.id and d.status = 'pending' and d.next_attempt_at <= now() and (d.locked_until is null or d.locked_until < now())
       ) as due_since
       from organisations o
       where true ${orgFilter}
     ) due
     where due_since is not null
     order by due_since
     limit ?`,
    [...(options.orgIds ? [[...options.orgIds]] : []), options.limit],
  ));
  return (result.rows as { org_id: string }[]).map((r) => r.org_id);
}

/**
 * The claim in one workspace, in one statement. SKIP LOCKED lets workers claim side by side without
 * waiting on each other's rows; a row another worker leased in the meantime fails the lease
 * condition when re-checked under its lock. Every table is named with the workspace's id, so on
 * Citus the statement runs in one shard group.
 */
async function claimDueIn(db: Db, orgId: string, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  const result = await db.raw(
    `with due as materialized (
       -- now() is compared here, not in RETURNING, where Citus does not allow it in a write.
       select d.org_id, d.id, w.previous_secret_expires_at > now() as previous_secret_valid,
         coalesce(k.expires_at <= now(), false) as key_expired
       from webhook_deliveries d
       join webhook_endpoints w on w.org_id = ? and w.id = d.endpoint_id
       left join api_keys k on w.owner_kind = 'apiKey' and k.org_id = ? and k.id = w.owner_id
       where d.org_id = ? and d.status = 'pending' and d.next_attempt_at <= now()
         and (d.locked_until is null or d.locked_until < now())
         and w.enabled
         and not exists (
           select 1 from webhook_deliveries earlier
           where earlier.org_id = ? and earlier.endpoint_id = d.endpoint_id and earlier.object_id = d.object_id
             and earlier.status = 'pending' and earlier.event_seq < d.event_seq)
       order by d.next_attempt_at, d.event_seq
       limit ?
       for update of d skip locked
     )
     update webhook_deliveries d
     set locked_until = now() + make_interval(secs => ?::double precision / 1000),
         claim_token = ?,
         attempts = d.attempts + 1
     from due, events e, webhook_endpoints w
       left join api_keys k on w.owner_kind = 'apiKey' and k.org_id = ? and k.id = w.owner_id
     where d.org_id = ? and d.id = due.id
       and e.org_id = ? and e.id = d.event_id
       and w.org_id = ? and w.id = d.endpoint_id
     returning d.org_id, d.id, d.endpoint_id, d.attempts, d.retry_base, d.claim_token,
       e.id as event_id, e.type, e.created_at, e.actor_kind, e.actor_id, e.data, e.trace_parent,
       w.url, w.secret, case when due.previous_secret_valid then w.previous_secret end as previous_secret,
       w.read_scopes, w.owner_kind, w.owner_id,
       k.id as key_id, k.revoked_at is not null as key_revoked, due.key_expired, k.scopes as key_scopes`,
    // One token for the leases this statement takes, made here: Citus refuses a volatile function in an UPDATE.
    [orgId, orgId, orgId, orgId, limit, leaseMs, randomUUID(), orgId, orgId, orgId, orgId],
  );
  return (result.rows as ClaimRow[]).map(toClaim);
}

interface ClaimRow {
  org_id: string; id: string; endpoint_id: string; attempts: number; retry_base: number; claim_token: string;
  event_id: string; type: string; created_at: Date; actor_kind: string; actor_id: string; data: Record<string, unknown>; trace_parent: string | null;
  url: string; secret: string; previous_secret: string | null; read_scopes: string[]; owner_kind: string; owner_id: string;
  key_id: string | null; key_revoked: boolean; key_expired: boolean; key_scopes: string[] | null;
}

function toClaim(row: ClaimRow): ClaimedDelivery {
  return {
    orgId: row.org_id,
    id: row.id,
    endpointId: row.endpoint_id,
    attempt: row.attempts,
    retryBase: row.retry_base,
    claimToken: row.claim_token,
    event: { id: row.event_id, type: row.type, createdAt: row.created_at, actorKind: row.actor_kind, actorId: row.actor_id, data: row.data, traceParent: row.trace_parent },
    url: row.url,
    secrets: row.previous_secret ? [row.secret, row.previous_secret] : [row.secret],
    readScopes: row.read_scopes,
    ownerKind: row.owner_kind,
    ownerId: row.owner_id,
    ownerKey: row.key_id ? { revoked: row.key_revoked, expired: row.key_expired, scopes: row.key_scopes ?? [] } : null,
  };
}

export interface AttemptRecord {
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseExcerpt: string | null;
}

/**
 * The attempt's row, as `insert ... select` text with its bindings: every attempt is kept, a lost
 * lease's late answer included (its number is its own claim's). The response excerpt is dropped
 * when the event was erased meanwhile (contacts.erase ran while the request was out): a receiver
 * may echo the body. Read from the event's row in the same statement (single-shard on Citus:
 * both rows are the workspace's).
 */
function attemptInsert(claim: ClaimedDelivery, attempt: AttemptRecord): { sql: string; bindings: Knex.Value[] } {
  return {
    sql: `insert into ${TABLES.webhookDeliveryAttempts} (org_id, delivery_id, attempt, started_at, duration_ms, status_code, error, response_excerpt)
       select ?, ?, ?::int, ?::timestamptz, ?::int, ?::int, ?::text, case when e.data -> 'erased' is null then ?::text end
       from ${TABLES.events} e where e.org_id = ? and e.id = ?
       on conflict (org_id, delivery_id, attempt) do nothing`,
    bindings: [
      claim.orgId, claim.id, claim.attempt, attempt.startedAt, attempt.durationMs, attempt.statusCode, attempt.error, attempt.responseExcerpt,
      claim.orgId, claim.event.id,
    ],
  };
}

/**
 * The endpoint's figures for the attempt's hour (webhook_endpoint_hours, read by endpointStats in
 * src/db/webhooks/endpoint-stats.ts), as CTE text with its bindings: one more row upserted by the
 * statement that records the attempt, never a statement of its own. The latest attempt wins the
 * `last_*` columns even when attempts are recorded out of order. Nothing when the endpoint was
 * deleted meanwhile.
 */
function hourUpsert(claim: ClaimedDelivery, attempt: AttemptRecord, succeeded: boolean): { sql: string; bindings: Knex.Value[] } {
  const hour = new Date(Math.floor(attempt.startedAt.getTime() / HOUR_MS) * HOUR_MS);
  return {
    sql: `insert into ${TABLES.webhookEndpointHours} as h
         (org_id, endpoint_id, hour, attempts, succeeded, last_attempt_at, last_status_code, last_succeeded)
       select w.org_id, w.id, ?::timestamptz, 1, ?::int, ?::timestamptz, ?::int, ?::boolean
       from ${TABLES.webhookEndpoints} w where w.org_id = ? and w.id = ?
       on conflict (org_id, endpoint_id, hour) do update set
         attempts = h.attempts + 1,
         succeeded = h.succeeded + excluded.succeeded,
         last_attempt_at = greatest(h.last_attempt_at, excluded.last_attempt_at),
         last_status_code = case when excluded.last_attempt_at >= h.last_attempt_at then excluded.last_status_code else h.last_status_code end,
         last_succeeded = case when excluded.last_attempt_at >= h.last_attempt_at then excluded.last_succeeded else h.last_succeeded end`,
    bindings: [hour, succeeded ? 1 : 0, attempt.startedAt, attempt.statusCode, succeeded, claim.orgId, claim.endpointId],
  };
}

const HOUR_MS = 3_600_000;

/** A 2xx answer; anything else (no answer, refused, another status) is a failed attempt. */
const acknowledged = (attempt: AttemptRecord) => attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300;

/** The attempt and its hour's figures, in one statement. */
export async function recordAttempt(db: Db, claim: ClaimedDelivery, attempt: AttemptRecord): Promise<void> {
  const recorded = attemptInsert(claim, attempt);
  const hour = hourUpsert(claim, attempt, acknowledged(attempt));
  await db.raw(`with attempt as (${recorded.sql}), endpoint_hour as (${hour.sql}) select 1`, [...recorded.bindings, ...hour.bindings]);
}

/**
 * The common case in one statement (one round trip, atomic): the 2xx attempt is recorded with its
 * hour's figures, the delivery succeeds if this claim still holds it, and then the endpoint's
 * failure streak ends. Answers false for a lost lease (the attempt is still recorded).
 */
export async function recordSuccess(db: Db, claim: ClaimedDelivery, attempt: AttemptRecord): Promise<boolean> {
  const recorded = attemptInsert(claim, attempt);
  const hour = hourUpsert(claim, attempt, true);
  const result = await db.raw(
    `with attempt as (
       ${recorded.sql}
     ),
     endpoint_hour as (
       ${hour.sql}
     ),
     settled as (
       update webhook_deliveries set status = 'succeeded', completed_at = now(), locked_until = null, claim_token = null
       where org_id = ? and id = ? and claim_token = ? and status = 'pending'
       returning org_id, endpoint_id
     ),
     healthy as (
       update webhook_endpoints w set failing_since = null
       from settled s where w.org_id = ? and w.id = s.endpoint_id and w.failing_since is not null
     )
     select count(*)::int as settled from settled`,
    [...recorded.bindings, ...hour.bindings, claim.orgId, claim.id, claim.claimToken, claim.orgId],
  );
  return result.rows[0].settled === 1;
}

/**
 * The settling updates change the delivery only while this claim still holds it; each answers
 * false otherwise (the lease expired and another worker claimed it, or it was deleted).
 */
async function settle(db: Db, claim: ClaimedDelivery, columns: Record<string, unknown>): Promise<boolean> {
  const updated = await db(TABLES.webhookDeliveries)
    .where({ org_id: claim.orgId, id: claim.id, claim_token: claim.claimToken, status: 'pending' })
    .update({ ...columns, locked_until: null, claim_token: null });
  return updated === 1;
}

export function markFailed(db: Db, claim: ClaimedDelivery): Promise<boolean> {
  return settle(db, claim, { status: 'failed', completed_at: db.fn.now() });
}

export function scheduleRetry(db: Db, claim: ClaimedDelivery, delayMs: number): Promise<boolean> {
  return settle(db, claim, { next_attempt_at: db.raw('now() + make_interval(secs => ?::double precision / 1000)', [delayMs]) });
}

/**
 * Notes a failed attempt on the endpoint (its streak starts now unless one is running) and answers
 * since when it has been failing and whether that is longer than `disableAfterMs` while enabled.
 * updated_at stays: the service's bookkeeping must not make a caller's expectedUpdatedAt stale.
 */
export async function markEndpointFailing(
  db: Db,
  orgId: string,
  endpointId: string,
  disableAfterMs: number,
): Promise<{ failingSince: Date; overdue: boolean } | undefined> {
  // Two statements: Citus evaluates now() on the coordinator and allows it in neither COALESCE
  // nor RETURNING of a write (LEAST skips the null as COALESCE would).
  return db.transaction(async (trx) => {
    await trx(TABLES.webhookEndpoints).where({ org_id: orgId, id: endpointId }).update({ failing_since: trx.raw('least(failing_since, now())') });
    const row = await trx(TABLES.webhookEndpoints)
      .where({ org_id: orgId, id: endpointId })
      .first('failing_since', trx.raw('enabled and failing_since <= now() - make_interval(secs => ?::double precision / 1000) as overdue', [disableAfterMs]));
    return row ? { failingSince: row.failing_since, overdue: row.overdue } : undefined;
  });
}

/** Answers false when it was already disabled (by a person, or by another worker's attempt). */
export async function disableEndpoint(db: Db, orgId: string, endpointId: string, reason: string): Promise<boolean> {
  const updated = await db(TABLES.webhookEndpoints)
    .where({ org_id: orgId, id: endpointId, enabled: true })
    .update({ enabled: false, disabled_reason: reason, updated_at: db.raw(NEXT_UPDATED_AT) });
  return updated === 1;
}
