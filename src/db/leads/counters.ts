import type { Knex } from 'knex';
import type { Db } from '../knex';
import type { Logger } from '../../logger';
import type { LeadStatus } from '../../domain/lead-status';
import { TABLES } from '../tables';
import { acrossWorkspaces } from '../across-workspaces';

// lead_counts (migrations 20261123150000, 20261210120000): how many of a workspace's leads have
// each status and assignee ('' for none), so the list's totals sum a few rows instead of counting
// the leads (count(*) of a million-lead workspace took about 100 ms). A write adds to its group's
// row of the database session it runs on (shard = pg_backend_pid(): a session runs one
// transaction at a time, so two writers of one workspace never meet on a row and never wait for
// each other here; on Citus the coordinator's session, where the value is computed). After a
// session's first write to a group that is an update of a row already there: a HOT update (no
// index entry), whose dead versions the next writer of the page prunes, with or without a vacuum.
// A session's rows stay while it is open; `foldCounterShards` adds the rows of sessions that have
// ended into each group's shard 0 in the background (`startCounterFolding`). It once folded every
// session's rows each second: a delete and an insert per session and group every second, dead
// rows and index entries that only a vacuum took away (6,810 dead rows after 4 minutes of creates
// on a server without autovacuum), and every write of the workspace waiting on its row while the
// fold held it. A total sums shard 0 and a row per group of each session that wrote it, in one
// snapshot, so it is exact at every moment.

/** One lead entering (+1) or leaving (-1) a (status, assignee) group. */
export interface CountDelta {
  status: LeadStatus;
  assignedToId: string | null;
  n: number;
}

/**
 * Applies `deltas` to the workspace's counters in one statement: summed per group, added to the
 * groups' rows of this session (inserted when the session has none yet).
 */
export async function addToCounts(trx: Knex.Transaction, orgId: string, deltas: readonly CountDelta[]): Promise<void> {
  const rows = groupedDeltas(deltas);
  if (rows.length === 0) return;
  const shard = trx.raw(SESSION_SHARD);
  await trx(TABLES.leadCounts)
    .insert(rows.map((g) => ({ org_id: orgId, status: g.status, assignee_key: g.assigneeKey, shard, n: g.n })))
    .onConflict(['org_id', 'status', 'assignee_key', 'shard'])
    .merge({ n: trx.raw('?? + excluded.n', [`${TABLES.leadCounts}.n`]) });
}

/**
 * `addToCounts` as the text of a CTE (`counts as (...)`) with its named bindings, for a statement
 * that binds the workspace as `:org`: the deltas are added only when its CTE `onlyWith` answers
 * a row (undefined when they sum to nothing).
 */
export function countDeltasCte(deltas: readonly CountDelta[], onlyWith: string): { sql: string; bindings: Record<string, Knex.Value> } | undefined {
  const rows = groupedDeltas(deltas);
  if (rows.length === 0) return undefined;
  const bindings: Record<string, Knex.Value> = {};
  const values = rows.map((g, i) => {
    Object.assign(bindings, { [`count${i}Status`]: g.status, [`count${i}Assignee`]: g.assigneeKey, [`count${i}N`]: g.n });
    return `(:count${i}Status::text, :count${i}Assignee::text, :count${i}N::int)`;
  });
  return {
    sql: `counts as (insert into ${TABLES.leadCounts} as c (org_id, status, assignee_key, shard, n)
    select :org, d.status, d.assignee_key, ${SESSION_SHARD}, d.n from (values ${values.join(', ')}) as d(status, assignee_key, n)
    where exists (select 1 from ${onlyWith})
    ${ADD_TO_ROW})`,
    bindings,
  };
}

/** The deltas summed per group, without the groups they leave unchanged, in key order (two writers never lock two rows in opposite orders). */
function groupedDeltas(deltas: readonly CountDelta[]): { status: LeadStatus; assigneeKey: string; n: number }[] {
  const groups = new Map<string, { status: LeadStatus; assigneeKey: string; n: number }>();
  for (const { status, assignedToId, n } of deltas) {
    const assigneeKey = assignedToId ?? '';
    const key = `${status}\u0000${assigneeKey}`;
    const group = groups.get(key) ?? { status, assigneeKey, n: 0 };
    group.n += n;
    groups.set(key, group);
  }
  return [...groups.values()]
    .filter((g) => g.n !== 0)
    .sort((a, b) => compare(a.status, b.status) || compare(a.assigneeKey, b.assigneeKey));
}

/** The counter rows' shard of the database session a write runs on. */
const SESSION_SHARD = 'pg_backend_pid()';

/** An insert's delta added to the session's row of its group when there is one (the insert names the table `c`). */
const ADD_TO_ROW = 'on conflict (org_id, status, assignee_key, shard) do update set n = c.n + excluded.n';

/** One lead's +1 as a statement (a CTE of `createLead`): named bindings org, status, assigneeKey. */
export const COUNT_DELTA_INSERT = `insert into ${TABLES.leadCounts} as c (org_id, status, assignee_key, shard, n)
    values (:org, :status, :assigneeKey, ${SESSION_SHARD}, 1)
    ${ADD_TO_ROW}`;

/** COUNT_DELTA_INSERT when the statement's CTE `lead` answers a row: a create that may insert no lead (leads.upsert's). */
export const COUNT_DELTA_INSERT_WITH_LEAD = `insert into ${TABLES.leadCounts} as c (org_id, status, assignee_key, shard, n)
    select :org, :status, :assigneeKey, ${SESSION_SHARD}, 1 from lead
    ${ADD_TO_ROW}`;

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
 * Folds up to `maxRows` of the workspace's unfolded counter rows (shard <> 0) into their groups'
 * shard 0, and drops folded groups that sum to zero; the rows of the sessions in `keep`
 * (`openSessionShards`) are left in place. Rows it cannot lock (SKIP LOCKED: a write or another
 * fold has them) are left for later; a write that meets its session's row being folded waits for
 * the fold's commit (milliseconds) and inserts the row afresh. Totals stay exact: the deletes and
 * the sums commit together, whichever rows went. Answers how many rows went.
 */
export async function foldCounterShards(
  db: Db,
  orgId: string,
  { maxRows = 10_000, keep = [] }: { maxRows?: number; keep?: readonly number[] } = {},
): Promise<number> {
  return db.transaction(async (trx) => {
    const deleted: { status: LeadStatus; assignee_key: string; n: string }[] = await trx(TABLES.leadCounts)
      .where('org_id', orgId)
      .whereIn(['status', 'assignee_key', 'shard'], trx(TABLES.leadCounts)
        .select('status', 'assignee_key', 'shard')
        .where('org_id', orgId).whereNot('shard', 0).whereRaw('shard <> all(?::bigint[])', [[...keep]])
        .orderBy(['status', 'assignee_key', 'shard'])
        .limit(maxRows)
        .forUpdate().skipLocked())
      .delete()
      .returning(['status', 'assignee_key', 'n']);
    if (deleted.length === 0) return 0;
    const sums = new Map<string, { status: LeadStatus; assignee_key: string; n: number }>();
    for (const row of deleted) {
      const key = `${row.status}\u0000${row.assignee_key}`;
      const sum = sums.get(key) ?? { status: row.status, assignee_key: row.assignee_key, n: 0 };
      sum.n += Number(row.n);
      sums.set(key, sum);
    }
    const folded = [...sums.values()].sort((a, b) => compare(a.status, b.status) || compare(a.assignee_key, b.assignee_key));
    await trx(TABLES.leadCounts)
      .insert(folded.map((g) => ({ org_id: orgId, status: g.status, assignee_key: g.assignee_key, shard: 0, n: g.n })))
      .onConflict(['org_id', 'status', 'assignee_key', 'shard'])
      .merge({ n: trx.raw('?? + excluded.n', [`${TABLES.leadCounts}.n`]) });
    await trx(TABLES.leadCounts).where({ org_id: orgId, shard: 0, n: 0 }).delete();
    return deleted.length;
  });
}

/**
 * The counter shards of the sessions open on the database server now (their backends' pids; on
 * Citus the coordinator's, where a write's shard is computed): rows the fold leaves in place. A
 * session opened after this read and given the pid of one that ended may have its row folded
 * under it, which costs it one insert and keeps every total exact.
 */
async function openSessionShards(db: Db): Promise<number[]> {
  const { rows } = await db.raw<{ rows: { pid: number }[] }>('select pid from pg_stat_activity where pid is not null');
  return rows.map((r) => Number(r.pid));
}

/**
 * Cross-workspace: the workspaces with counter rows to fold, other than `keep`'s (through the
 * partial index on unfolded rows). It reads every workspace's counters (every shard on Citus), so
 * it runs as an exemption (`acrossWorkspaces`).
 */
export async function workspacesWithCountersToFoldAcrossWorkspaces(db: Db, keep: readonly number[] = []): Promise<string[]> {
  return acrossWorkspaces(db, async (trx) => {
    const rows: { org_id: string }[] = await trx(TABLES.leadCounts).distinct('org_id').whereNot('shard', 0)
      .whereRaw('shard <> all(?::bigint[])', [[...keep]]);
    return rows.map((r) => r.org_id);
  });
}

/** Bounds one workspace's folding, so busy writes (which keep adding shards) cannot keep it going. */
const MAX_BATCHES = 100;

/**
 * Folds one workspace's counters (`foldCounterShards`, all its sessions' rows but `keep`'s) in
 * batches until one deletes nothing; answers how many rows went.
 */
export async function foldWorkspaceCounters(db: Db, orgId: string, shouldStop: () => boolean = () => false, keep: readonly number[] = []): Promise<number> {
  let deleted = 0;
  for (let batch = 0; batch < MAX_BATCHES && !shouldStop(); batch++) {
    const count = await foldCounterShards(db, orgId, { keep });
    deleted += count;
    if (count === 0) break;
  }
  return deleted;
}

/**
 * Folds the counters of every workspace that has some to fold, one workspace at a time, but the
 * rows of the sessions in `keep`; `shouldStop` ends it between batches.
 */
export async function foldAllCounterShards(db: Db, shouldStop: () => boolean = () => false, keep: readonly number[] = []): Promise<number> {
  let deleted = 0;
  for (const orgId of await workspacesWithCountersToFoldAcrossWorkspaces(db, keep)) {
    deleted += await foldWorkspaceCounters(db, orgId, shouldStop, keep);
  }
  return deleted;
}

/** Folds the rows of the sessions that have ended (`openSessionShards` are kept), in every workspace. */
export async function foldEndedSessions(db: Db, shouldStop: () => boolean = () => false): Promise<number> {
  return foldAllCounterShards(db, shouldStop, await openSessionShards(db));
}

/** How the server runs a background job (src/server/periodic-job.ts), given by the caller: db/ does not reach into server/. */
export type StartJob<Job> = (job: { intervalMs: number; runAtStart: boolean; run(shouldStop: () => boolean): Promise<void> }) => Job;

/**
 * Folds the rows of ended sessions (`foldEndedSessions`) at start and then every `intervalMs` (30
 * s), so a total sums a row per group and one per group of each open session that wrote it, and
 * of the few sessions that ended since. Not more often: its first statement reads every shard, and
 * on Citus each one a hung worker held left a coordinator session waiting on that worker, all
 * served before any request once it resumed. Every instance may run it: concurrent folds skip
 * each other's rows. A failure is logged and tried again at the next interval. `startJob` runs it
 * (the server's startPeriodicJob).
 */
export function startCounterFolding<Job>(options: { db: Db; logger: Logger; intervalMs?: number; startJob: StartJob<Job> }): Job {
  const { db, logger, intervalMs = 30_000, startJob } = options;
  return startJob({
    intervalMs,
    runAtStart: true,
    run: (shouldStop) => foldEndedSessions(db, shouldStop)
      .then((deleted) => logger.debug({ deleted }, 'lead counter shards folded'))
      .catch((err: unknown) => logger.warn({ err }, 'could not fold lead counter shards')),
  });
}
