import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { cpuTimeUs } from './processes';

// Many Server-Sent Events subscribers spread over a few client processes
// (sse-client-process.ts), for bench/subscriptions.ts.

export interface SubscriberSpec {
  path: string;
  headers: Record<string, string>;
}

/** Receipt latencies (from each event's createdAt), counted in buckets of `bucketMs`: [bucket, count]. */
export interface LatencyHistogram {
  bucketMs: number;
  buckets: [number, number][];
}

export type SseCommand =
  | { cmd: 'open'; baseUrl: string; subscribers: SubscriberSpec[]; concurrency: number }
  | { cmd: 'reset' }
  | { cmd: 'stats' }
  | { cmd: 'verify'; expected: string[] }
  | { cmd: 'close' };

export interface SseStats {
  open: number;
  receipts: number;
  pings: number;
  errors: number;
  /** Streams that ended under way and were resumed with Last-Event-ID. */
  reconnects: number;
  events: number;
  /** Per event (per process), its slowest receipt in ms. */
  slowestPerEvent: number[];
  latency: LatencyHistogram;
}

export interface SseVerdict {
  subscribers: number;
  /** Subscribers that received exactly the expected events, each once. */
  complete: number;
  /** Subscribers with fewer, with more, or as many but not the same. */
  short: number;
  over: number;
  mismatched: number;
  /** Events missing in all (the short subscribers' shortfall). */
  missing: number;
  /** Ids received that were not expected. */
  unknown: number;
}

export type SseReply =
  | { cmd: 'open'; opened: number; failed: number }
  | { cmd: 'reset' }
  | ({ cmd: 'stats' } & SseStats)
  | ({ cmd: 'verify' } & SseVerdict)
  | { cmd: 'close' };

class ClientProcess {
  private waiting: ((reply: SseReply) => void) | undefined;

  constructor(readonly child: ChildProcess) {
    child.on('message', (reply: SseReply) => {
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting?.(reply);
    });
  }

  ask<C extends SseCommand['cmd']>(command: Extract<SseCommand, { cmd: C }>): Promise<Extract<SseReply, { cmd: C }>> {
    if (this.waiting) throw new Error('one command at a time');
    return new Promise((done, fail) => {
      const exited = () => fail(new Error(`SSE client process exited during ${command.cmd}`));
      this.child.once('exit', exited);
      this.waiting = (reply) => {
        this.child.off('exit', exited);
        done(reply as Extract<SseReply, { cmd: C }>);
      };
      this.child.send(command);
    });
  }
}

export class SseClients {
  private constructor(private readonly processes: ClientProcess[]) {}

  /** Starts `count` client processes (node with tsx, as the servers run). */
  static start(count: number): SseClients {
    const file = resolve(__dirname, 'sse-client-process.ts');
    return new SseClients(Array.from({ length: count }, () => new ClientProcess(
      spawn(process.execPath, ['--max-old-space-size=4096', '--import', 'tsx', file], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
    )));
  }

  get pids(): number[] {
    return this.processes.map((p) => p.child.pid!);
  }

  /** Opens the subscribers (dealt round-robin to the processes), at most `concurrency` per process waiting for `connected`. */
  async open(baseUrl: string, specs: SubscriberSpec[], concurrency: number): Promise<{ opened: number; failed: number; seconds: number }> {
    const started = performance.now();
    const shares = this.processes.map((_, i) => specs.filter((__, j) => j % this.processes.length === i));
    const replies = await Promise.all(this.processes.map((p, i) => p.ask({ cmd: 'open', baseUrl, subscribers: shares[i]!, concurrency })));
    return {
      opened: replies.reduce((n, r) => n + r.opened, 0),
      failed: replies.reduce((n, r) => n + r.failed, 0),
      seconds: (performance.now() - started) / 1000,
    };
  }

  async reset(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.ask({ cmd: 'reset' })));
  }

  /** Every process's counts together; the slowest receipt of each event across processes. */
  async stats(): Promise<SseStats> {
    const replies = await Promise.all(this.processes.map((p) => p.ask({ cmd: 'stats' })));
    const buckets = new Map<number, number>();
    for (const r of replies) for (const [b, n] of r.latency.buckets) buckets.set(b, (buckets.get(b) ?? 0) + n);
    const sum = (pick: (r: SseStats) => number) => replies.reduce((n, r) => n + pick(r), 0);
    return {
      open: sum((r) => r.open), receipts: sum((r) => r.receipts), pings: sum((r) => r.pings), errors: sum((r) => r.errors),
      reconnects: sum((r) => r.reconnects), events: Math.max(...replies.map((r) => r.events)),
      // Each process reports its own slowest per event; with one process this is exact, with more it is per process.
      slowestPerEvent: replies.flatMap((r) => r.slowestPerEvent),
      latency: { bucketMs: replies[0]?.latency.bucketMs ?? 0.1, buckets: [...buckets].sort((a, b) => a[0] - b[0]) },
    };
  }

  async verify(expected: string[]): Promise<SseVerdict> {
    const replies = await Promise.all(this.processes.map((p) => p.ask({ cmd: 'verify', expected })));
    const sum = (pick: (r: SseVerdict) => number) => replies.reduce((n, r) => n + pick(r), 0);
    return {
      subscribers: sum((r) => r.subscribers), complete: sum((r) => r.complete), short: sum((r) => r.short), over: sum((r) => r.over),
      mismatched: sum((r) => r.mismatched), missing: sum((r) => r.missing), unknown: Math.max(...replies.map((r) => r.unknown)),
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.ask({ cmd: 'close' })));
  }

  /** The client processes' CPU time so far, in microseconds (to tell the load generator's share). */
  cpuTimeUs(): number {
    return this.pids.reduce((n, pid) => n + cpuTimeUs(pid), 0);
  }

  stop(): void {
    for (const p of this.processes) p.child.disconnect();
  }
}

/** The `p`th percentile (0-100) of a histogram, in ms (the upper edge of its bucket); NaN when empty. */
export function histogramPercentile(h: LatencyHistogram, p: number): number {
  const total = h.buckets.reduce((n, [, c]) => n + c, 0);
  if (total === 0) return NaN;
  const rank = Math.ceil((p / 100) * total);
  let seen = 0;
  for (const [bucket, count] of h.buckets) {
    seen += count;
    if (seen >= rank) return (bucket + 1) * h.bucketMs;
  }
  return NaN;
}
