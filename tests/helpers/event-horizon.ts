import type { Db } from '../../src/db/knex';
import { until } from './poll';

/**
 * Waits until catch-up (`events.getAll` with `after`) can show every event the workspace has
 * committed: until every transaction older than its newest event's has ended (the horizon,
 * src/db/events). Another test's open transaction holds it back for as long as it stays open.
 * Two statements, as the service reads them: on Citus the horizon is the coordinator's.
 */
export async function untilEventsVisible(db: Db, orgId: string, timeoutMs = 20_000): Promise<void> {
  const { rows: [newest] } = await db.raw<{ rows: { txid: string | null }[] }>(
    'select max(txid::text::bigint)::text as txid from events where org_id = ?', [orgId]);
  if (!newest?.txid) return;
  const visible = await until(async () => {
    const { rows } = await db.raw<{ rows: { horizon: string }[] }>('select pg_snapshot_xmin(pg_current_snapshot())::text as horizon');
    return BigInt(rows[0]!.horizon) > BigInt(newest.txid!);
  }, timeoutMs);
  if (!visible) throw new Error(`events of ${orgId} still above the horizon after ${timeoutMs} ms: a transaction stays open`);
}
