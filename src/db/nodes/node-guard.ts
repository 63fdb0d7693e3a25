import { AppError } from '../../errors/app-error';
import { toAppError } from '../../errors/to-app-error';
import type { Logger } from '../../logger';

/** closed: requests run; open: they fail fast while a probe waits for the node to answer. */
export type BreakerState = 'closed' | 'open';

export interface NodeGuardSettings {
  /** Requests of the node's workspaces that may use the database at once (Infinity: no bulkhead). */
  maxInFlight(node: string): number;
  /** How long a request waits for its node's bulkhead before a 503 (DB_ACQUIRE_TIMEOUT_MS). */
  queueTimeoutMs: number;
  /** Consecutive failures (unreachable, timed out) that open a node's breaker. */
  failuresToOpen: number;
  /** After a probe the node refused or failed, how long until the next one (DB_BREAKER_OPEN_MS). */
  openMs: number;
  /**
   * Resolves once the node answers a trivial statement, however long that takes; rejects when it
   * refuses or fails it (node-probe.ts). An open breaker closes when a probe resolves.
   */
  probe(node: string): Promise<void>;
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
  probing: boolean;
  lastRequestAt: number;
  inFlight: number;
  waiting: Waiter[];
  timeouts: number;
  failures: number;
  rejected: number;
}

/** A node no request has asked for in this long is not probed further; its next request starts the probe again. */
const PROBE_WHILE_ASKED_MS = 60_000;

/** statement_timeout's SQLSTATE, and what pg and knex say when an answer or a connection never came. */
const TIMED_OUT = /Query read timeout|timeout expired/i;
const QUERY_CANCELED = '57014';
/** Waiting for one of this process's own connections says nothing about the node. */
const POOL_EXHAUSTED = /timeout acquiring a connection/i;

/**
 * Bulkheads and circuit breakers, one of each per database node: requests of the workspaces a
 * node holds can never use more than `maxInFlight` of the pool at once, so a hung node cannot
 * starve the others' workspaces; and once a node has failed `failuresToOpen` times in a row, its
 * workspaces' requests are answered 503 at once until a probe (`settings.probe`, one at a time)
 * finds it answering again: a probe waits on a hung node, so the node is served again the moment
 * it resumes; one the node refuses is followed by the next after `openMs`. Every state change is
 * one warn line naming the node.
 */
export function createNodeGuard(settings: NodeGuardSettings, logger: Logger) {
  const nodes = new Map<string, NodeState>();

  function stateOf(node: string): NodeState {
    let state = nodes.get(node);
    if (!state) {
      state = { node, maxInFlight: settings.maxInFlight(node), state: 'closed', consecutiveFailures: 0, probing: false, lastRequestAt: 0, inFlight: 0, waiting: [], timeouts: 0, failures: 0, rejected: 0 };
      nodes.set(node, state);
    }
    return state;
  }

  function moveTo(s: NodeState, next: BreakerState, cause?: { code?: unknown; message?: unknown }): void {
    if (s.state === next) return;
    const was = s.state;
    s.state = next;
    if (next === 'open') {
      // Those queued behind it would only wait out their time: each is answered now.
      for (const waiter of s.waiting.splice(0)) {
        clearTimeout(waiter.timer);
        s.rejected += 1;
        waiter.reject(notAnswering(s));
      }
    }
    if (next === 'closed') logger.warn({ node: s.node, was }, `database node ${s.node} answers again: its workspaces are served`);
    else {
      logger.warn({ node: s.node, failures: s.consecutiveFailures, cause }, `database node ${s.node} is not answering: its workspaces' requests fail fast with 503 until it does`);
      void probeUntilAnswered(s);
    }
  }

  /** Probes the node, one probe at a time, until one is answered (the breaker closes) or no request asks for the node any more. */
  async function probeUntilAnswered(s: NodeState): Promise<void> {
    if (s.probing) return;
    s.probing = true;
    try {
      while (s.state === 'open' && Date.now() - s.lastRequestAt < PROBE_WHILE_ASKED_MS) {
        try {
          await settings.probe(s.node);
          s.consecutiveFailures = 0;
          moveTo(s, 'closed');
        } catch {
          await new Promise((resolve) => setTimeout(resolve, settings.openMs).unref());
        }
      }
    } finally {
      s.probing = false;
    }
  }

  function notAnswering(s: NodeState): AppError {
    return new AppError('SERVICE_UNAVAILABLE', 'The database node holding this workspace is not answering; retry shortly', {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(settings.openMs / 1000))) },
      cause: { code: 'NODE_UNAVAILABLE', message: `breaker open for ${s.node}` },
    });
  }

  /** Answers the request 503 at once while the node's breaker is open (its probe, stopped for want of requests, starts again). */
  function admit(s: NodeState): void {
    s.lastRequestAt = Date.now();
    if (s.state === 'closed') return;
    void probeUntilAnswered(s);
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

  function record(s: NodeState, err: unknown): void {
    if (err === undefined) {
      s.consecutiveFailures = 0;
      // A late answer of a request begun before the breaker opened says the node answers.
      moveTo(s, 'closed');
      return;
    }
    const cause = err as { code?: unknown; message?: unknown };
    // Only the node's own silence counts: a bad input, a conflict or an exhausted pool say nothing of it.
    if (toAppError(err).code !== 'SERVICE_UNAVAILABLE' || (typeof cause.message === 'string' && POOL_EXHAUSTED.test(cause.message))) return;
    s.failures += 1;
    if (cause.code === QUERY_CANCELED || (typeof cause.message === 'string' && TIMED_OUT.test(cause.message))) s.timeouts += 1;
    s.consecutiveFailures += 1;
    if (s.state === 'closed' && s.consecutiveFailures >= settings.failuresToOpen) moveTo(s, 'open', { code: cause.code, message: cause.message });
  }

  return {
    /** Runs `work` for a workspace on `node`, within its bulkhead and breaker. */
    async run<T>(node: string, work: () => Promise<T>): Promise<T> {
      const s = stateOf(node);
      admit(s);
      await enter(s);
      if (s.state === 'open') {
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
        record(s, failure);
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
