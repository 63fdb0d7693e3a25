import { AppError } from '../../errors/app-error';
import { toAppError } from '../../errors/to-app-error';
import type { Logger } from '../../logger';

/** closed: requests run; open: they fail fast; half-open: one trial request runs, the rest fail fast. */
export type BreakerState = 'closed' | 'open' | 'half-open';

export interface NodeGuardSettings {
  /** Requests of the node's workspaces that may use the database at once (Infinity: no bulkhead). */
  maxInFlight(node: string): number;
  /** How long a request waits for its node's bulkhead before a 503 (DB_ACQUIRE_TIMEOUT_MS). */
  queueTimeoutMs: number;
  /** Consecutive failures (unreachable, timed out) that open a node's breaker. */
  failuresToOpen: number;
  /** How long an open breaker fails requests fast before one trial request goes through. */
  openMs: number;
}

/** What /readyz and /metrics show of one node. */
export interface NodeReport {
  node: string;
  state: BreakerState;
  inFlight: number;
  queued: number;
  timeouts: number;
  failures: number;
  rejected: number;
}

interface Waiter {
  resolve(): void;
  reject(err: AppError): void;
  timer: NodeJS.Timeout;
}

interface NodeState {
  node: string;
  maxInFlight: number;
  state: BreakerState;
  consecutiveFailures: number;
  openedAt: number;
  trialRunning: boolean;
  inFlight: number;
  waiting: Waiter[];
  timeouts: number;
  failures: number;
  rejected: number;
}

/** statement_timeout's SQLSTATE, and what pg and knex say when an answer or a connection never came. */
const TIMED_OUT = /Query read timeout|timeout expired/i;
const QUERY_CANCELED = '57014';
/** Waiting for one of this process's own connections says nothing about the node. */
const POOL_EXHAUSTED = /timeout acquiring a connection/i;

/**
 * Bulkheads and circuit breakers, one of each per database node: requests of the workspaces a
 * node holds can never use more than `maxInFlight` of the pool at once, so a hung node cannot
 * starve the others' workspaces; and once a node has failed `failuresToOpen` times in a row, its
 * workspaces' requests are answered 503 at once for `openMs`, after which one trial request
 * decides whether it answers again. Every state change is one warn line naming the node.
 */
export function createNodeGuard(settings: NodeGuardSettings, logger: Logger) {
  const nodes = new Map<string, NodeState>();

  function stateOf(node: string): NodeState {
    let state = nodes.get(node);
    if (!state) {
      state = { node, maxInFlight: settings.maxInFlight(node), state: 'closed', consecutiveFailures: 0, openedAt: 0, trialRunning: false, inFlight: 0, waiting: [], timeouts: 0, failures: 0, rejected: 0 };
      nodes.set(node, state);
    }
    return state;
  }

  function moveTo(s: NodeState, next: BreakerState, cause?: { code?: unknown; message?: unknown }): void {
    if (s.state === next) return;
    const was = s.state;
    s.state = next;
    if (next === 'open') {
      s.openedAt = Date.now();
      // Those queued behind it would only wait out their time: each is answered now.
      for (const waiter of s.waiting.splice(0)) {
        clearTimeout(waiter.timer);
        s.rejected += 1;
        waiter.reject(notAnswering(s));
      }
    }
    if (next === 'closed') logger.warn({ node: s.node, was }, `database node ${s.node} answers again: its workspaces are served`);
    else if (next === 'open' && was === 'closed') {
      logger.warn({ node: s.node, failures: s.consecutiveFailures, cause }, `database node ${s.node} is not answering: its workspaces' requests fail fast with 503 until it does`);
    }
  }

  function notAnswering(s: NodeState): AppError {
    const retryAfter = Math.max(1, Math.ceil((s.openedAt + settings.openMs - Date.now()) / 1000));
    return new AppError('SERVICE_UNAVAILABLE', 'The database node holding this workspace is not answering; retry shortly', {
      headers: { 'Retry-After': String(retryAfter) },
      cause: { code: 'NODE_UNAVAILABLE', message: `breaker open for ${s.node}` },
    });
  }

  /** Whether this request may go to the node now: closed, or the one trial of a half-open breaker. */
  function admit(s: NodeState): { trial: boolean } {
    if (s.state === 'open' && Date.now() - s.openedAt >= settings.openMs) moveTo(s, 'half-open');
    if (s.state === 'closed') return { trial: false };
    if (s.state === 'half-open' && !s.trialRunning) {
      s.trialRunning = true;
      return { trial: true };
    }
    s.rejected += 1;
    throw notAnswering(s);
  }

  function enter(s: NodeState): Promise<void> | undefined {
    if (s.inFlight < s.maxInFlight) {
      s.inFlight += 1;
      return undefined;
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve: () => {
          s.inFlight += 1;
          resolve();
        },
        reject,
        timer: setTimeout(() => {
          s.waiting.splice(s.waiting.indexOf(waiter), 1);
          s.rejected += 1;
          reject(new AppError('SERVICE_UNAVAILABLE', 'The database node holding this workspace is busy; retry shortly', {
            headers: { 'Retry-After': '1' },
            cause: { code: 'NODE_BUSY', message: `${s.maxInFlight} requests already in flight on ${s.node}` },
          }));
        }, settings.queueTimeoutMs),
      };
      s.waiting.push(waiter);
    });
  }

  function leave(s: NodeState): void {
    s.inFlight -= 1;
    const next = s.waiting.shift();
    if (next) {
      clearTimeout(next.timer);
      next.resolve();
    }
  }

  function record(s: NodeState, trial: boolean, err: unknown): void {
    if (trial) s.trialRunning = false;
    if (err === undefined) {
      s.consecutiveFailures = 0;
      if (s.state !== 'closed') moveTo(s, 'closed');
      return;
    }
    const cause = err as { code?: unknown; message?: unknown };
    // Only the node's own silence counts: a bad input, a conflict or an exhausted pool say nothing of it.
    if (toAppError(err).code !== 'SERVICE_UNAVAILABLE' || (typeof cause.message === 'string' && POOL_EXHAUSTED.test(cause.message))) {
      if (trial) moveTo(s, 'closed');
      return;
    }
    s.failures += 1;
    const timedOut = cause.code === QUERY_CANCELED || (typeof cause.message === 'string' && TIMED_OUT.test(cause.message));
    if (timedOut) s.timeouts += 1;
    s.consecutiveFailures += 1;
    if (trial || s.state === 'half-open') {
      moveTo(s, 'open');
      // A trial that timed out says the node was silent when it began, seconds ago, not that it
      // is now: the next request is the next trial, so a hung node that resumes is served within
      // one request instead of a trial's time plus openMs. A refusal is news: it waits out openMs.
      if (timedOut) s.openedAt -= settings.openMs;
    } else if (s.consecutiveFailures >= settings.failuresToOpen) moveTo(s, 'open', { code: cause.code, message: cause.message });
  }

  return {
    /** Runs `work` for a workspace on `node`, within its bulkhead and breaker. */
    async run<T>(node: string, work: () => Promise<T>): Promise<T> {
      const s = stateOf(node);
      const { trial } = admit(s);
      try {
        await enter(s);
      } catch (err) {
        if (trial) s.trialRunning = false;
        throw err;
      }
      if (s.state === 'open' && !trial) {
        // The breaker opened while this request waited for room.
        leave(s);
        s.rejected += 1;
        throw notAnswering(s);
      }
      let failure: unknown;
      try {
        return await work();
      } catch (err) {
        failure = err;
        throw err;
      } finally {
        // Recorded first: a breaker this opens answers the queue before it would get the room.
        record(s, trial, failure);
        leave(s);
      }
    },
    report(): NodeReport[] {
      return [...nodes.values()].map(({ node, state, inFlight, waiting, timeouts, failures, rejected }) => ({
        node, state, inFlight, queued: waiting.length, timeouts, failures, rejected,
      }));
    },
  };
}
