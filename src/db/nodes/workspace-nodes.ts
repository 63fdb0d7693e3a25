import type { Db } from '../knex';

/** The one node of a database that is not distributed. */
export const SINGLE_NODE = 'database';

/** Workspaces whose shard is remembered; a shard's node is asked again on every refresh. */
const MAX_REMEMBERED_WORKSPACES = 100_000;

export interface WorkspaceNodes {
  /** Whether the database spreads workspaces over nodes (Citus with workers). */
  distributed(): Promise<boolean>;
  /** The node (`host:port`) that holds the workspace's shard; SINGLE_NODE on one PostgreSQL. */
  nodeOf(orgId: string): Promise<string>;
  close(): void;
}

/**
 * Where each workspace lives, from Citus's own metadata on the coordinator (read there alone, so
 * a worker that hangs cannot stall the lookup): a workspace's shard never changes, so it is
 * remembered; which node holds each shard is read again every `refreshMs`, so a moved shard's
 * workspaces follow it. On one PostgreSQL every workspace is on SINGLE_NODE and nothing is read.
 */
export function createWorkspaceNodes(db: Db, { refreshMs = 10_000 }: { refreshMs?: number } = {}): WorkspaceNodes {
  let citus: Promise<boolean> | undefined;
  const shardOfWorkspace = new Map<string, string>();
  let nodeOfShard = new Map<string, string>();
  let loaded: Promise<void> | undefined;
  let loadedAt = 0;

  function isCitus(): Promise<boolean> {
    citus ??= db.raw<{ rows: { citus: boolean }[] }>("select exists (select 1 from pg_extension where extname = 'citus') as citus")
      .then(({ rows }) => rows[0]?.citus === true)
      .catch((err: unknown) => {
        citus = undefined; // asked again by the next request
        throw err;
      });
    return citus;
  }

  function loadPlacements(): Promise<void> {
    loaded ??= db.raw<{ rows: { shard: string; node: string }[] }>(
      `select p.shardid::text as shard, n.nodename || ':' || n.nodeport as node
       from pg_dist_shard s join pg_dist_placement p using (shardid) join pg_dist_node n using (groupid)
       where s.logicalrelid = 'organisations'::regclass`,
    ).then(({ rows }) => {
      nodeOfShard = new Map(rows.map((row) => [row.shard, row.node]));
      loadedAt = Date.now();
    }).finally(() => {
      loaded = undefined;
    });
    return loaded;
  }

  async function shardOf(orgId: string): Promise<string> {
    const known = shardOfWorkspace.get(orgId);
    if (known !== undefined) return known;
    const { rows } = await db.raw<{ rows: { shard: string }[] }>(
      "select get_shard_id_for_distribution_column('organisations', ?::text)::text as shard",
      [orgId],
    );
    const shard = rows[0]!.shard;
    if (shardOfWorkspace.size >= MAX_REMEMBERED_WORKSPACES) shardOfWorkspace.clear();
    shardOfWorkspace.set(orgId, shard);
    return shard;
  }

  return {
    distributed: isCitus,
    async nodeOf(orgId) {
      if (!(await isCitus())) return SINGLE_NODE;
      const shard = await shardOf(orgId);
      if (Date.now() - loadedAt > refreshMs) {
        // Stale placements still route requests while the refresh runs; only a first load is awaited.
        const refresh = loadPlacements();
        if (loadedAt === 0) await refresh;
        else refresh.catch(() => undefined);
      }
      return nodeOfShard.get(shard) ?? (await loadPlacements(), nodeOfShard.get(shard) ?? SINGLE_NODE);
    },
    close() {
      shardOfWorkspace.clear();
    },
  };
}
