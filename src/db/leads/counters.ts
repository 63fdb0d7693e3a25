import type { Knex } from 'knex';
import type { Db } from '../knex';
import type { Logger } from '../../logger';
import type { LeadStatus } from '../../domain/lead-status';
import { TABLES } from '../tables';
import { acrossWorkspaces } from '../across-workspaces';
import { startPeriodicJob, type PeriodicJob } from '../../server/periodic-job';

// lead_counts (migration 20261123150000): how many of a workspace's leads have each status and
// assignee ('' for none), so the list's totals sum a few rows instead of counting the leads
// (count(*) of a million-lead workspace took about 100 ms). One row per (workspace, status,
// assignee, shard): each write adds to a random one of 16 shards, so concurrent writes to one
// workspace rarely wait on one row, and `foldCounterShards` folds them back. Every write of leads
// in this folder calls `addToCounts` in its own transaction, which keeps the totals exact.
const SHARDS = 16;

/** One lead entering (+1) or leaving (-1) a (status, assignee) group. */
export interface CountDelta {
  status: LeadStatus;
  assignedToId: string | null;
  n: number;
}

/**
 * Applies `deltas` to the workspace's counters in one statement: summed per group, into one random
 * shard, upserted in key order so that two writes never lock the same rows in opposite orders.
 */
export async function addToCounts(trx: Knex.Transaction, orgId: string, deltas: readonly CountDelta[]): Promise<void> {
  const groups = new Map<string, { status: LeadStatus; assigneeKey: string; n: number }>();
  for (const { status, assignedToId, n } of deltas) {
    const assigneeKey = assignedToId ?? '';
    const key = `${status}\u0000${assigneeKey}`;
    const group = groups.get(key) ?? { status, assigneeKey, n: 0 };
    group.n += n;
    groups.set(key, group);
  }
  const rows = [...groups.values()]
    .filter((g) => g.n !== 0)
    .sort((a, b) => compare(a.status, b.status) || compare(a.assigneeKey, b.assigneeKey));
  if (rows.length === 0) return;
  const shard = Math.floor(Math.random() * SHARDS);
  await trx(TABLES.leadCounts)
    .insert(rows.map((g) => ({ org_id: orgId, status: g.status, assignee_key: g.assigneeKey, shard, n: g.n })))
    .onConflict(['org_id', 'status', 'assignee_key', 'shard'])
    .merge({ n: trx.raw('?? + excluded.n', [`${TABLES.leadCounts}.n`]) });
}

/** Byte order, which is the order of these ASCII keys in the primary key too. */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export interface CountedFilters {
  status?: LeadStatus;
  /** A member id, or 'unassigned'. */
  assignedToId?: string;
}

/** The number of the workspace's leads matching the filters, as a query (its sum is null when no row matches). */
export function countersSumQuery(db: Db, orgId: string, filters: CountedFilters): Knex.QueryBuilder {
  const query = db(TABLES.leadCounts).where('org_id', orgId);
  if (filters.status) query.where('status', filters.status);
  if (filters.assignedToId) query.where('assignee_key', filters.assignedToId === 'unassigned' ? '' : filters.assignedToId);
  return query.sum({ n: 'n' });
}

export async function countByCounters(db: Db, orgId: string, filters: CountedFilters): Promise<number> {
  const rows = (await countersSumQuery(db, orgId, filters)) as { n: string | null }[];
  return Number(rows[0]?.n ?? 0);
}

/**
 * Folds each of the workspace's counter groups into one row: of a group's rows it can lock (SKIP
 * LOCKED: it never waits for a write, and no write waits on it in a cycle) the lowest shard takes
 * their sum and the others are deleted (all of them when the sum is 0). Totals stay exact: a
 * write blocked on a deleted row inserts it afresh once this commits (ON CONFLICT retries), one
 * blocked on the kept row adds to the folded sum. One statement, so it needs no transaction of its
 * own. Answers how many rows were deleted.
 */
export async function foldCounterShards(db: Db, orgId: string, { maxRows = 10_000 }: { maxRows?: number } = {}): Promise<number> {
  const group = (a: string, b: string) => `${a}.status = ${b}.status and ${a}.assignee_key = ${b}.assignee_key`;
  const { rows } = await db.raw<{ rows: { deleted: number }[] }>(
    `with locked as (
       select status, assignee_key, shard, n from ${TABLES.leadCounts}
       where org_id = ? and (status, assignee_key) in (
         select status, assignee_key from ${TABLES.leadCounts} where org_id = ?
         group by status, assignee_key having count(*) > 1 or sum(n) = 0)
       order by status, assignee_key, shard
       limit ?
       for update skip locked),
     folded as (
       select status, assignee_key, min(shard) as kept_shard, sum(n) as total, count(*) as shards
       from locked group by status, assignee_key),
     deleted as (
       delete from ${TABLES.leadCounts} c using locked l, folded f
       where c.org_id = ? and ${group('c', 'l')} and c.shard = l.shard and ${group('f', 'l')}
         and (l.shard <> f.kept_shard or f.total = 0)
       returning 1),
     -- Runs though nothing reads it, as every data-modifying WITH does.
     kept as (
       update ${TABLES.leadCounts} c set n = f.total from folded f
       where c.org_id = ? and ${group('c', 'f')} and c.shard = f.kept_shard and f.total <> 0 and f.shards > 1)
     select (select count(*) from deleted)::int as deleted`,
    [orgId, orgId, maxRows, orgId, orgId],
  );
  return rows[0]!.deleted;
}

/**
 * Cross-workspace: the workspaces with a counter group to fold. It reads every workspace's
 * counters (every shard on Citus), so it runs as an exemption (`acrossWorkspaces`).
 */
export async function workspacesWithCountersToFoldAcrossWorkspaces(db: Db): Promise<string[]> {
  return acrossWorkspaces(db, async (trx) => {
    const rows: { org_id: string }[] = await trx(TABLES.leadCounts)
      .distinct('org_id')
      .whereIn(['org_id', 'status', 'assignee_key'], trx(TABLES.leadCounts)
        .select('org_id', 'status', 'assignee_key')
        .groupBy('org_id', 'status', 'assignee_key')
        .havingRaw('count(*) > 1 or sum(n) = 0'));
    return rows.map((r) => r.org_id);
  });
}

/** Bounds one workspace's folding, so busy writes (which keep adding shards) cannot keep it going. */
const MAX_BATCHES = 100;

/** Folds one workspace's counters (`foldCounterShards`) in batches until one deletes nothing; answers how many rows went. */
export async function foldWorkspaceCounters(db: Db, orgId: string, shouldStop: () => boolean = () => false): Promise<number> {
  let deleted = 0;
  for (let batch = 0; batch < MAX_BATCHES && !shouldStop(); batch++) {
    const count = await foldCounterShards(db, orgId);
    deleted += count;
    if (count === 0) break;
  }
  return deleted;
}

/** Folds the counters of every workspace that has some to fold, one workspace at a time; `shouldStop` ends it between batches. */
export async function foldAllCounterShards(db: Db, shouldStop: () => boolean = () => false): Promise<number> {
  let deleted = 0;
  for (const orgId of await workspacesWithCountersToFoldAcrossWorkspaces(db)) {
    deleted += await foldWorkspaceCounters(db, orgId, shouldStop);
  }
  return deleted;
}

/**
 * Folds the counters at start and then every `intervalMs` (a minute), so a total sums about a row
 * per group. Every instance may run it: concurrent folds skip each other's rows. A failure is
 * logged and tried again at the next interval.
 */
export function startCounterFolding(options: { db: Db; logger: Logger; intervalMs?: number }): PeriodicJob {
  const { db, logger, intervalMs = 60_000 } = options;
  return startPeriodicJob({
    intervalMs,
    runAtStart: true,
    run: (shouldStop) => foldAllCounterShards(db, shouldStop)
      .then((deleted) => logger.debug({ deleted }, 'lead counter shards folded'))
      .catch((err: unknown) => logger.warn({ err }, 'could not fold lead counter shards')),
  });
}
