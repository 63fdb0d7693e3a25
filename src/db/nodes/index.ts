import type { Logger } from '../../logger';
import type { Db } from '../knex';
import { createNodeGuard, type NodeReport } from './node-guard';
import { probeNode } from './node-probe';
import { createWorkspaceNodes, SINGLE_NODE } from './workspace-nodes';

export { createNodeGuard, type NodeReport, type NodeGuardSettings } from './node-guard';

export interface NodeSettings {
  /** DB_POOL_MAX: the bulkheads are shares of it. */
  poolMax: number;
  /** DB_NODE_POOL_SHARE */
  poolShare: number;
  /** DB_ACQUIRE_TIMEOUT_MS: the longest a request waits for its node's bulkhead. */
  queueTimeoutMs: number;
  /** DB_BREAKER_FAILURES; DB_BREAKER_OPEN_MS: after a probe the node refused, how long until the next */
  failuresToOpen: number;
  openMs: number;
}

export const DEFAULT_NODE_SETTINGS: NodeSettings = { poolMax: 10, poolShare: 0.5, queueTimeoutMs: 3000, failuresToOpen: 3, openMs: 200 };

/**
 * The database's nodes as requests meet them: each request for a workspace runs through `run`,
 * which finds the node holding it (workspace-nodes.ts) and keeps it within that node's bulkhead
 * and breaker (node-guard.ts). On one PostgreSQL there is one node and no bulkhead beyond the pool.
 */
export function createDatabaseNodes(db: Db, settings: NodeSettings, logger: Logger) {
  const placement = createWorkspaceNodes(db);
  const share = Math.max(1, Math.floor(settings.poolMax * settings.poolShare));
  // A workspace each node holds, the last one a request asked for: a probe of the node reads its row.
  const workspaceOn = new Map<string, string>();
  const guard = createNodeGuard({
    maxInFlight: (node) => (node === SINGLE_NODE ? Infinity : share),
    queueTimeoutMs: settings.queueTimeoutMs,
    failuresToOpen: settings.failuresToOpen,
    openMs: settings.openMs,
    probe: (node) => probeNode(db, node === SINGLE_NODE ? undefined : workspaceOn.get(node)),
  }, logger);
  return {
    /** Runs a request's database work for `orgId` within its node's bulkhead and breaker. */
    async run<T>(orgId: string, work: () => Promise<T>): Promise<T> {
      const node = await placement.nodeOf(orgId);
      workspaceOn.set(node, orgId);
      return guard.run(node, work);
    },
    /** Every node a request has met, with its breaker state and load. */
    report(): NodeReport[] {
      return guard.report();
    },
  };
}

export type DatabaseNodes = ReturnType<typeof createDatabaseNodes>;

/** `work` for `orgId` within its node's bulkhead and breaker, or straight when there are no `nodes` (tools, tests). */
export function onNode<T>(nodes: DatabaseNodes | undefined, orgId: string, work: () => Promise<T>): Promise<T> {
  return nodes ? nodes.run(orgId, work) : work();
}
