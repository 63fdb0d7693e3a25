import { readFileSync } from 'node:fs';
import type { Db } from '../../src/db/knex';
import { median } from './report';

// What a case of bench/subscriptions.ts ran beside: the server's memory, its wait for a core, and
// other databases' write transactions on the same PostgreSQL server.

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** A process's resident memory now (VmRSS), in KB. */
export function rssKb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : NaN;
}

/** The median of a few readings of a process's resident memory, over about 2 s (KB). */
export async function steadyRssKb(pid: number): Promise<number> {
  const readings: number[] = [];
  for (let i = 0; i < 5; i++) {
    readings.push(rssKb(pid));
    await sleep(400);
  }
  return median(readings);
}

/**
 * How long a process's main thread has waited, runnable, for a CPU so far (ns), from
 * /proc/<pid>/schedstat: on a machine shared with other work, what shows that a server fell
 * behind for want of a core rather than for its own cost.
 */
export function runQueueWaitNs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]);
}

export interface Conditions {
  /** Share of 100 ms samples with a write transaction of another database open, and the longest seen. */
  otherWriters: number;
  longestOtherWriterMs: number;
  /** The subscription server's main thread waiting, runnable, for a core: % of the case's time. */
  serverWaitPercent: number;
}

/**
 * What else held the case back, sampled while it runs. Every 100 ms, whether a write transaction
 * of another database of the cluster is open: the event horizon is the cluster's oldest running
 * transaction, so another database's long write holds back every live reader's next events (both
 * sides alike) until it ends. And the server's wait for a CPU, from the scheduler.
 */
export function watchConditions(db: Db, serverPid: number): { stop(): Promise<Conditions> } {
  const startedAt = performance.now();
  const waitAt = runQueueWaitNs(serverPid);
  let samples = 0;
  let open = 0;
  let longestMs = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await db.raw(`select count(*)::int as n, coalesce(max(extract(epoch from clock_timestamp() - xact_start) * 1000), 0)::float8 as oldest
        from pg_stat_activity where backend_xid is not null and datname is distinct from current_database()`);
      samples++;
      if (rows[0].n > 0) open++;
      longestMs = Math.max(longestMs, rows[0].oldest);
      await sleep(100);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const serverWaitPercent = ((runQueueWaitNs(serverPid) - waitAt) / 1e6 / (performance.now() - startedAt)) * 100;
      return { otherWriters: samples ? open / samples : NaN, longestOtherWriterMs: longestMs, serverWaitPercent };
    },
  };
}
