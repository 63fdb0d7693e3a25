import type { Logger } from '../logger';
import { onNode, type DatabaseNodes } from '../db/nodes';
import { isUnavailable } from '../errors/to-app-error';
import type { WakeUps } from './wake-ups';

/** A reader of a value computed from a workspace's data (its lead stats). */
export interface RefreshWatcher<T> {
  /** The value after a change; the same value twice is sent once. */
  deliver(value: T): void;
}

export interface ThrottledRefresh {
  /**
   * After each change in `orgId`, calls `compute` again and hands its value to every watcher
   * sharing `key`: at most once per interval per workspace however many watch, the computation
   * shared by every watcher of one key. Answers how to stop watching.
   */
  watch<T>(orgId: string, key: string, compute: () => Promise<T>, watcher: RefreshWatcher<T>): () => void;
  stop(): void;
}

interface Group {
  compute: () => Promise<unknown>;
  watchers: Set<RefreshWatcher<unknown>>;
}

interface Workspace {
  groups: Map<string, Group>;
  lastRefresh: number;
  timer: NodeJS.Timeout | undefined;
  refreshing: boolean;
  again: boolean;
}

export function createThrottledRefresh({ wakeUps, logger, nodes, intervalMs = 1000 }: { wakeUps: WakeUps; logger: Logger; nodes?: DatabaseNodes; intervalMs?: number }): ThrottledRefresh {
  const workspaces = new Map<string, Workspace>();

  const unsubscribe = wakeUps.subscribe((orgId) => {
    if (orgId === undefined) for (const [id, workspace] of workspaces) schedule(id, workspace);
    else {
      const workspace = workspaces.get(orgId);
      if (workspace) schedule(orgId, workspace);
    }
  });

  function schedule(orgId: string, workspace: Workspace): void {
    if (workspace.refreshing) {
      workspace.again = true;
      return;
    }
    if (workspace.timer) return;
    const wait = Math.max(0, workspace.lastRefresh + intervalMs - Date.now());
    workspace.timer = setTimeout(() => void refresh(orgId, workspace), wait);
  }

  async function refresh(orgId: string, workspace: Workspace): Promise<void> {
    workspace.timer = undefined;
    workspace.refreshing = true;
    workspace.again = false;
    workspace.lastRefresh = Date.now();
    for (const group of workspace.groups.values()) {
      try {
        const value = await onNode(nodes, orgId, group.compute);
        for (const watcher of group.watchers) watcher.deliver(value);
      } catch (err) {
        // The next change computes again; a watcher keeps the last value meanwhile.
        logger[isUnavailable(err) ? 'debug' : 'warn']({ err, orgId }, 'live updates: could not compute a refreshed value');
      }
    }
    workspace.refreshing = false;
    if (workspace.again && workspaces.get(orgId) === workspace) schedule(orgId, workspace);
  }

  return {
    watch(orgId, key, compute, watcher) {
      let workspace = workspaces.get(orgId);
      if (!workspace) {
        workspace = { groups: new Map(), lastRefresh: 0, timer: undefined, refreshing: false, again: false };
        workspaces.set(orgId, workspace);
      }
      let group = workspace.groups.get(key);
      if (!group) {
        group = { compute, watchers: new Set() };
        workspace.groups.set(key, group);
      }
      const watching = watcher as RefreshWatcher<unknown>;
      group.watchers.add(watching);
      const [ws, g] = [workspace, group];
      return () => {
        g.watchers.delete(watching);
        if (g.watchers.size > 0) return;
        ws.groups.delete(key);
        if (ws.groups.size > 0) return;
        clearTimeout(ws.timer);
        workspaces.delete(orgId);
      };
    },
    stop() {
      unsubscribe();
      for (const workspace of workspaces.values()) clearTimeout(workspace.timer);
      workspaces.clear();
    },
  };
}
