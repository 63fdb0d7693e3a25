import type { Knex } from 'knex';
import type { Db } from './knex';
import type { LeadStatus } from '../domain/lead-status';
import { prepared } from './prepared-statements';
import { TABLES } from './tables';

export interface CountedFilters {
  status?: LeadStatus;
  /** A member id, or 'unassigned'. */
  assignedToId?: string;
}

/**
 * The exact number of the workspace's leads matching status/assignee filters, summed from the
 * counters (a few hundred rows at most) instead of counting every lead. Exact because the
 * counters change in the same transaction as the leads they count. As a query (its sum is null
 * when no counter row matches), so a page can read its total in its own statement.
 */
export function countersSumQuery(db: Db, orgId: string, filters: CountedFilters): Knex.QueryBuilder {
  const query = db(TABLES.leadCounts).where('org_id', orgId);
  if (filters.status) query.where('status', filters.status);
  if (filters.assignedToId) query.where('assignee_key', filters.assignedToId === 'unassigned' ? '' : filters.assignedToId);
  return query.sum({ n: 'n' });
}

export async function countLeadsByCounters(db: Db, orgId: string, filters: CountedFilters): Promise<number> {
  const rows = (await prepared(db, countersSumQuery(db, orgId, filters))) as { n: string | null }[];
  return Number(rows[0]?.n ?? 0);
}

/**
 * Folds each counter group's shards into one row, so a total sums one row per group instead of up
 * to 16 (every write statement adds to a random shard, so busy groups spread over all of them).
 * It locks what rows it can with SKIP LOCKED, so it never waits for a write and no write's lock
 * can wait on it in a cycle; a shard a write holds now is folded next time. Of each group's locked
 * rows, the lowest shard takes their sum and the others are deleted (all of them when the sum is
 * 0). Totals stay exact throughout: a write blocked on a deleted row inserts it afresh once this
 * commits (ON CONFLICT retries), one blocked on the kept row adds to the folded sum.
 * One statement, not a transaction of several: the embedded database's socket runs every
 * connection in one session, where another connection's query would land inside an open
 * transaction. Answers how many rows were deleted.
 */
export async function foldCounterShards(db: Db, { maxRows = 10_000 }: { maxRows?: number } = {}): Promise<number> {
  const sameGroup = (a: string, b: string) => `${a}.org_id = ${b}.org_id and ${a}.status = ${b}.status and ${a}.assignee_key = ${b}.assignee_key`;
  const { rows } = await db.raw<{ rows: { deleted: number }[] }>(
    `with locked as (
       select org_id, status, assignee_key, shard, n from ${TABLES.leadCounts}
       where (org_id, status, assignee_key) in (
         select org_id, status, assignee_key from ${TABLES.leadCounts}
         group by org_id, status, assignee_key having count(*) > 1 or sum(n) = 0)
       order by org_id, status, assignee_key, shard
       limit ?
       for update skip locked),
     folded as (
       select org_id, status, assignee_key, min(shard) as kept_shard, sum(n) as total, count(*) as shards
       from locked group by org_id, status, assignee_key),
     deleted as (
       delete from ${TABLES.leadCounts} c using locked l, folded f
       where ${sameGroup('c', 'l')} and c.shard = l.shard and ${sameGroup('f', 'l')}
         and (l.shard <> f.kept_shard or f.total = 0)
       returning 1),
     -- Runs though nothing reads it, as every data-modifying WITH does.
     kept as (
       update ${TABLES.leadCounts} c set n = f.total from folded f
       where ${sameGroup('c', 'f')} and c.shard = f.kept_shard and f.total <> 0 and f.shards > 1)
     select (select count(*) from deleted)::int as deleted`,
    [maxRows],
  );
  return rows[0]!.deleted;
}
