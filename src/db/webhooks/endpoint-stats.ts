import type { Db } from '../knex';
import { acrossWorkspaces } from '../across-workspaces';
import { TABLES } from '../tables';

/** An endpoint's delivery figures, as webhooks.getAll and getById show them. */
export interface DeliveryStats {
  lastAttemptAt: Date | null;
  lastStatus: 'succeeded' | 'failed' | null;
  lastStatusCode: number | null;
  attempts24h: number;
  /** Succeeded attempts over attempts in the last 24 hours; null without attempts. */
  successRate24h: number | null;
}

const NONE: DeliveryStats = { lastAttemptAt: null, lastStatus: null, lastStatusCode: null, attempts24h: 0, successRate24h: null };

/**
 * The figures of the given endpoints, from webhook_endpoint_hours (kept by the statements that
 * record attempts, src/db/webhooks/deliveries.ts): per endpoint its latest hour's row and at most
 * 24 rows summed, whatever its volume. The last 24 hours are the 24 hourly buckets up to now, the
 * current one included. One statement, in the workspace's shard on Citus.
 */
export async function statsOf(db: Db, orgId: string, endpointIds: readonly string[]): Promise<Map<string, DeliveryStats>> {
  const stats = new Map<string, DeliveryStats>();
  if (endpointIds.length === 0) return stats;
  const { rows } = await db.raw<{ rows: StatsRow[] }>(
    `select x.id, l.last_attempt_at, l.last_status_code, l.last_succeeded, s.attempts, s.succeeded
     from unnest(?::text[]) as x(id)
     left join lateral (
       select h.last_attempt_at, h.last_status_code, h.last_succeeded from ${TABLES.webhookEndpointHours} h
       where h.org_id = ? and h.endpoint_id = x.id order by h.hour desc limit 1
     ) l on true
     left join lateral (
       select sum(h.attempts)::int as attempts, sum(h.succeeded)::int as succeeded from ${TABLES.webhookEndpointHours} h
       where h.org_id = ? and h.endpoint_id = x.id and h.hour > now() - interval '24 hours'
     ) s on true`,
    [[...endpointIds], orgId, orgId],
  );
  for (const row of rows) {
    const attempts = row.attempts ?? 0;
    stats.set(row.id, {
      lastAttemptAt: row.last_attempt_at,
      lastStatus: row.last_succeeded === null ? null : row.last_succeeded ? 'succeeded' : 'failed',
      lastStatusCode: row.last_status_code,
      attempts24h: attempts,
      successRate24h: attempts === 0 ? null : (row.succeeded ?? 0) / attempts,
    });
  }
  return stats;
}

/**
 * Deletes the hourly rows no read needs any more: older than the 24 hours statsOf sums, and not
 * their endpoint's latest (which gives lastAttemptAt however long ago it was); answers how many.
 * Every hour, so a run deletes about one row per endpoint that was busy a day ago. One statement
 * over every workspace (on Citus each shard joins only its own rows).
 */
export async function purgeStaleHours(db: Db): Promise<number> {
  return acrossWorkspaces(db, async (trx) => {
    const result = await trx.raw(
      `delete from ${TABLES.webhookEndpointHours} h
       where h.hour < now() - interval '25 hours'
         and exists (
           select 1 from ${TABLES.webhookEndpointHours} n
           where n.org_id = h.org_id and n.endpoint_id = h.endpoint_id and n.hour > h.hour
         )`,
    );
    return result.rowCount ?? 0;
  });
}

export const noStats = (): DeliveryStats => ({ ...NONE });

interface StatsRow {
  id: string;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_succeeded: boolean | null;
  attempts: number | null;
  succeeded: number | null;
}
