import { cpus } from 'node:os';
import type { Accounting } from './accounting';
import type { CreateAttempt } from './clients';
import { percentile, type Sample } from './recorder';

/** When the fault happened, in ms since the epoch; absent without --restart-postgres. */
export interface FaultTimes {
  stopIssuedAt: number;
  stoppedAt?: number;
  backAt?: number;
}

export interface RunFacts {
  clients: number;
  seconds: number;
  startedAt: number;
  endedAt: number;
  samples: Sample[];
  creates: CreateAttempt[];
  accounting: Accounting;
  readiness: { at: number; status: number | undefined }[];
  listenerLiveAt: number[];
  fault?: FaultTimes;
  limits: { acquireTimeoutMs: number; recoverySeconds: number; requestTimeoutMs: number };
  postgresVersion: string;
  poolMax: number;
}

export interface Check {
  name: string;
  passed: boolean;
  detail: string;
}

/** Slack over the acquire timeout for a 503 (scheduling on a busy 2-core machine). */
const FAIL_FAST_SLACK_MS = 2000;

export function machineLine(postgresVersion: string): string {
  const cpu = cpus();
  return `${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown'}), Node ${process.version}, ${postgresVersion.split(' on ')[0]}`;
}

const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(1)} ms` : 'n/a');
const sec = (value: number | undefined) => (value === undefined ? 'never' : `${(value / 1000).toFixed(1)} s`);

/** A moment relative to PostgreSQL's return: "0.4 s before" or "1.2 s after". */
function relative(deltaMs: number): string {
  return `${(Math.abs(deltaMs) / 1000).toFixed(1)} s ${deltaMs < 0 ? 'before' : 'after'}`;
}

function latencies(samples: Sample[]): string {
  const sorted = samples.map((s) => s.latencyMs).sort((a, b) => a - b);
  return `p50 ${ms(percentile(sorted, 50))}, p99 ${ms(percentile(sorted, 99))} (n=${sorted.length})`;
}

function countBy<T>(items: T[], key: (item: T) => string): [string, number][] {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => a.localeCompare(b));
}

/** The first moment at or after `from` that `matches`, as a delay from `from`. */
function firstAfter(from: number, times: number[]): number | undefined {
  const after = times.filter((t) => t >= from);
  return after.length ? Math.min(...after) - from : undefined;
}

export function evaluate(facts: RunFacts): { lines: string[]; checks: Check[] } {
  const { samples, accounting: acc, fault, limits } = facts;
  const at = (t: number) => `+${((t - facts.startedAt) / 1000).toFixed(1)} s`;
  const runSeconds = (facts.endedAt - facts.startedAt) / 1000;
  const ok = samples.filter((s) => s.status === 200);
  const fiveXx = samples.filter((s) => s.status !== undefined && s.status >= 500);
  const noAnswer = samples.filter((s) => s.status === undefined);
  const timeouts = samples.filter((s) => s.label === 'timeout');
  const windowEnd = fault?.backAt !== undefined ? fault.backAt + limits.recoverySeconds * 1000 : Number.POSITIVE_INFINITY;
  const inWindow = (s: Sample) => fault !== undefined && s.endedAt >= fault.stopIssuedAt && s.endedAt <= windowEnd;

  const lines = [
    `machine: ${machineLine(facts.postgresVersion)}; server compiled, NODE_ENV=production, DB_POOL_MAX=${facts.poolMax}, DB_ACQUIRE_TIMEOUT_MS=${limits.acquireTimeoutMs}`,
    `run: ${facts.clients} clients for ${facts.seconds} s (${runSeconds.toFixed(1)} s with the drain)${fault ? `, PostgreSQL stopped at ${at(fault.stopIssuedAt)}` : ''}`,
    `requests: ${samples.length} (${(samples.length / runSeconds).toFixed(0)}/s): ${countBy(samples, (s) => s.op).map(([op, n]) => `${op} ${n}`).join(', ')}`,
    `successes (200): ${ok.length}`,
    `answers by status: ${countBy(samples, (s) => s.label).map(([label, n]) => `${label}: ${n}`).join(', ')}`,
    `latency, all answers: ${latencies(samples.filter((s) => s.status !== undefined))}`,
    `latency, leads.create 200: ${latencies(ok.filter((s) => s.op === 'leads.create'))}`,
    `latency, leads.update 200: ${latencies(ok.filter((s) => s.op === 'leads.update'))}`,
    `creates: ${acc.keysSent} keys, ${acc.acknowledged} acknowledged (${facts.creates.filter((c) => c.replayed).length} by a replay, ${facts.creates.filter((c) => c.attempts > 1).length} after a retry; ${facts.creates.reduce((n, c) => n + c.attempts - 1, 0)} retries in all)`,
    `accounting: ${acc.leadsInDatabase} leads in the database; lost ${acc.lost.length}, doubled ${acc.doubled.length}, acknowledged as another lead ${acc.mismatched.length}, never acknowledged ${acc.unacknowledged.length}, without a key ${acc.orphans.length}`,
  ];
  const checks: Check[] = [
    { name: 'no acknowledged create lost', passed: acc.lost.length === 0, detail: `${acc.lost.length} lost ${acc.lost.slice(0, 3).join(' ')}` },
    { name: 'no create doubled', passed: acc.doubled.length === 0, detail: `${acc.doubled.length} doubled ${acc.doubled.slice(0, 3).join(' ')}` },
    { name: 'every acknowledgement names the lead stored for its key', passed: acc.mismatched.length === 0, detail: `${acc.mismatched.length} mismatched` },
    { name: 'every create acknowledged by the end of the drain', passed: acc.unacknowledged.length === 0, detail: `${acc.unacknowledged.length} not acknowledged: ${countBy(facts.creates.filter((c) => !c.leadId), (c) => c.refusedWith ?? 'gave up').map(([l, n]) => `${l} ${n}`).join(', ')}` },
    { name: 'no lead without a key of this run', passed: acc.orphans.length === 0, detail: `${acc.orphans.length} orphans` },
    { name: 'every answer in the envelope (a 503 as SERVICE_UNAVAILABLE)', passed: samples.every((s) => s.inEnvelope), detail: `${samples.filter((s) => !s.inEnvelope).length} not` },
    { name: 'no hung request (client timeout)', passed: timeouts.length === 0, detail: `${timeouts.length} timed out after ${limits.requestTimeoutMs} ms` },
    { name: 'every 5xx a 503', passed: fiveXx.every((s) => s.status === 503), detail: `${fiveXx.filter((s) => s.status !== 503).length} other 5xx` },
    {
      name: fault ? `no 5xx and no dropped connection outside the fault window (stop .. back + ${limits.recoverySeconds} s)` : 'no 5xx and no dropped connection',
      passed: [...fiveXx, ...noAnswer].every(inWindow),
      detail: `${[...fiveXx, ...noAnswer].filter((s) => !inWindow(s)).length} outside`,
    },
  ];

  if (fault) {
    const backAt = fault.backAt;
    const slowest503 = Math.max(0, ...fiveXx.filter((s) => s.status === 503).map((s) => s.latencyMs));
    const readyAgain = backAt === undefined ? undefined : firstAfter(backAt, facts.readiness.filter((r) => r.status === 200).map((r) => r.at));
    const createdAgain = backAt === undefined ? undefined : firstAfter(backAt, ok.filter((s) => s.op === 'leads.create').map((s) => s.endedAt));
    const listenerAgain = backAt === undefined ? undefined : firstAfter(backAt, facts.listenerLiveAt);
    const last5xx = fiveXx.length ? Math.max(...fiveXx.map((s) => s.endedAt)) : undefined;
    const readyDown = facts.readiness.some((r) => r.at >= fault.stopIssuedAt && (backAt === undefined || r.at <= backAt) && r.status === 503);
    const limitMs = limits.recoverySeconds * 1000;
    lines.push(
      `fault: PostgreSQL stop issued ${at(fault.stopIssuedAt)}, stopped ${fault.stoppedAt ? at(fault.stoppedAt) : 'n/a'}, accepting again ${backAt ? at(backAt) : 'never'} (down ${backAt ? sec(backAt - fault.stopIssuedAt) : 'n/a'}); 5xx: ${fiveXx.length}, slowest 503 ${ms(slowest503)}`,
      `recovery after PostgreSQL was back: /readyz 200 after ${sec(readyAgain)}, first create acknowledged after ${sec(createdAgain)}, last 5xx ${last5xx === undefined || backAt === undefined ? 'n/a' : relative(last5xx - backAt)}, key-cache LISTEN live again after ${sec(listenerAgain)}`,
    );
    checks.push(
      { name: `every 503 within DB_ACQUIRE_TIMEOUT_MS + ${FAIL_FAST_SLACK_MS / 1000} s`, passed: slowest503 <= limits.acquireTimeoutMs + FAIL_FAST_SLACK_MS, detail: `slowest ${ms(slowest503)}` },
      { name: '/readyz answered 503 while PostgreSQL was down', passed: readyDown, detail: readyDown ? 'yes' : 'no 503 seen' },
      { name: `recovered by itself within ${limits.recoverySeconds} s (/readyz 200 and a create acknowledged)`, passed: (readyAgain ?? Infinity) <= limitMs && (createdAgain ?? Infinity) <= limitMs, detail: `readyz ${sec(readyAgain)}, create ${sec(createdAgain)}` },
      { name: `key-cache LISTEN connection live again within ${limits.recoverySeconds} s`, passed: (listenerAgain ?? Infinity) <= limitMs, detail: sec(listenerAgain) },
    );
  }
  return { lines, checks };
}
