import express, { type Router } from 'express';
import type { Db } from '../db/knex';
import { isSchemaCurrent } from '../db/migrator';
import type { DatabaseNodes } from '../db/nodes';

type Problem = 'database unreachable' | 'migrations pending';

/** Longer than a healthy round trip by far, shorter than the probe timeouts orchestrators use. */
const READINESS_TIMEOUT_MS = 2000;

/**
 * `GET /healthz`: the process answers (no database: a slow database must not get the process
 * restarted). `GET /readyz`: the database answers on every pool and every migration is applied, else 503 with
 * a fixed reason; the cause goes to the log, never to the answer. No auth, no versions.
 * Readiness asks the coordinator alone: an instance whose one worker is down is still the right
 * place for the other workspaces' requests, so such a node is named in `degraded`, still 200.
 */
export function healthRouter(deps: { db: Db; pools: readonly Db[]; nodes: DatabaseNodes; timeoutMs?: number }): Router {
  const router = express.Router({ caseSensitive: true });
  const timeoutMs = deps.timeoutMs ?? READINESS_TIMEOUT_MS;
  // Migrations only move forward while the process runs: once current, only reachability is asked.
  let schemaCurrent = false;

  async function findProblem(): Promise<Problem | undefined> {
    // Every pool, `db` and the hot reads' own if they have one (hot-reads.ts): each must answer.
    await Promise.all(deps.pools.map((pool) => pool.raw('select 1')));
    if (schemaCurrent) return undefined;
    // Asked first because knex's migration listing creates its tables when they are missing,
    // and a probe must not write to the database.
    const { rows } = await deps.db.raw<{ rows: { present: boolean }[] }>("select to_regclass('knex_migrations') is not null as present");
    if (!rows[0]?.present) return 'migrations pending';
    schemaCurrent = await isSchemaCurrent(deps.db);
    return schemaCurrent ? undefined : 'migrations pending';
  }

  router.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });

  router.get('/readyz', async (_req, res) => {
    res.set('Cache-Control', 'no-store');
    let problem: Problem | undefined;
    try {
      problem = await withTimeout(findProblem(), timeoutMs);
    } catch (err) {
      // Expected while the database restarts, and healing by itself: the probe's own request line
      // says why, at warn (request-log.ts).
      const cause = err as { code?: unknown; message?: unknown };
      res.locals.unavailableCause = { code: cause.code, message: cause.message };
      problem = 'database unreachable';
    }
    const degraded = deps.nodes.report().filter((n) => n.state !== 'closed').map(({ node, state }) => ({ node, state }));
    if (problem) res.status(503).json({ status: 'unavailable', reason: problem, ...(degraded.length > 0 && { degraded }) });
    else res.json({ status: 'ready', ...(degraded.length > 0 && { degraded }) });
  });
  return router;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
