import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from '../db/knex';
import type { DatabaseNodes, NodeReport } from '../db/nodes';

/** What the request observer needs; the registry is what /metrics renders. */
export interface Metrics {
  registry: Registry;
  observeRequest(route: string, status: number, seconds: number): void;
}

/** The part of knex's tarn pool read at scrape time. */
interface TarnPool {
  max: number;
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
}

/**
 * A registry of its own per app (not prom-client's global one), so several apps in one process,
 * as in the tests, never register a metric twice. Default process metrics are collected once,
 * here, when the registry is made.
 */
export function createMetrics(pools: readonly Db[], nodes?: DatabaseNodes): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'Requests answered, by procedure or route pattern and status',
    labelNames: ['route', 'status'] as const,
    registers,
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to finishing its answer, by procedure or route pattern',
    labelNames: ['route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  // The gauges add every pool (the database handle's `hotReads.pools()`: the hot reads may have their own).
  registerPoolGauges(registry, () => pools.map((pool) => (pool.client as { pool?: TarnPool }).pool));
  if (nodes) registerNodeGauges(registry, nodes);
  // prom-client hashes a label object on every call; the children are kept instead (routes and
  // statuses are bounded: unknown procedure names share one label).
  const counters = new Map<string, { inc(): void }>();
  const timers = new Map<string, { observe(seconds: number): void }>();
  return {
    registry,
    observeRequest(route, status, seconds) {
      const key = `${status} ${route}`;
      let counter = counters.get(key);
      if (!counter) counters.set(key, (counter = requests.labels({ route, status })));
      counter.inc();
      let timer = timers.get(route);
      if (!timer) timers.set(route, (timer = duration.labels({ route })));
      timer.observe(seconds);
    },
  };
}

// 1 was 'half-open' (a trial request) before probes replaced trials: kept unused, so dashboards' thresholds hold.
const BREAKER_STATES: Record<NodeReport['state'], number> = { closed: 0, open: 2 };

/** Per database node, read when scraped from the nodes' own counts (src/db/nodes). */
function registerNodeGauges(registry: Registry, nodes: DatabaseNodes): void {
  const perNode = (name: string, help: string, read: (report: NodeReport) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['node'] as const,
      registers: [registry],
      collect() {
        for (const report of nodes.report()) this.set({ node: report.node }, read(report));
      },
    });
  perNode('db_node_breaker_state', 'Circuit breaker of the node: 0 closed, 2 open (its requests fail fast while a probe waits for the node)', (r) => BREAKER_STATES[r.state]);
  perNode('db_node_requests_in_flight', 'Requests of the node\'s workspaces using the database now (at most its bulkhead)', (r) => r.inFlight);
  perNode('db_node_requests_queued', 'Requests waiting for room in the node\'s bulkhead', (r) => r.queued);
  // Counts kept by the nodes, copied into counters when scraped.
  const counted = (name: string, help: string, read: (report: NodeReport) => number) =>
    new Counter({
      name,
      help,
      labelNames: ['node'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const report of nodes.report()) this.inc({ node: report.node }, read(report));
      },
    });
  counted('db_node_timeouts_total', 'Requests of the node\'s workspaces whose statement timed out or whose answer never came', (r) => r.timeouts);
  counted('db_node_failures_total', 'Requests of the node\'s workspaces that found it unreachable or timed out', (r) => r.failures);
  counted('db_node_rejected_total', 'Requests answered 503 at once: breaker open, or no room in the bulkhead in time', (r) => r.rejected);
}

/** Read when scraped, so requests pay nothing for them; summed over the pools; a destroyed pool reads as empty. */
function registerPoolGauges(registry: Registry, tarnPools: () => (TarnPool | undefined)[]): void {
  const gauge = (name: string, help: string, read: (pool: TarnPool) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(tarnPools().reduce((sum, pool) => sum + (pool ? read(pool) : 0), 0));
      },
    });
  gauge('db_pool_connections_in_use', 'Database connections lent to a query or transaction', (p) => p.numUsed());
  gauge('db_pool_connections_idle', 'Open database connections waiting in the pool', (p) => p.numFree());
  gauge('db_pool_acquires_waiting', 'Queries waiting for a connection from the pool', (p) => p.numPendingAcquires());
  gauge('db_pool_connections_pending', 'Database connections being opened', (p) => p.numPendingCreates());
  gauge('db_pool_connections_max', 'Largest number of connections the pool opens', (p) => p.max);
}
