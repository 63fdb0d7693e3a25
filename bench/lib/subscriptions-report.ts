import { machineLine, median } from './report';
import type { CannonResult } from './cannon';
import type { SseVerdict } from './sse-clients';
import type { PacedResult } from './paced-writes';
import type { Conditions } from './run-conditions';

// What bench/subscriptions.ts measures on each side, and its report: one Markdown table, ours
// and the peer side by side.

/** The sizes a run was asked for (the report names them). */
export interface SubscriptionsPlan {
  idle: number;
  workspaces: number;
  fanout: number;
  singleEvents: number;
  rate: number;
  duration: number;
  seconds: number;
  warmup: number;
  clientProcesses: number;
  rounds: number;
  pingMs: number;
  poolMax: string;
  sides: string[];
}

export interface IdleResult {
  opened: number;
  failed: number;
  openSeconds: number;
  rssBeforeMb: number;
  rssAfterMb: number;
  kbPerSubscriber: number;
  idleCpuPercent: number;
  /** The same with no subscriber open. */
  baseCpuPercent: number;
  stillOpen: number;
  /** The median round's runs, and every round's ratio (with / without). */
  getByIdWith: CannonResult;
  getByIdWithout: CannonResult;
  getByIdRatios: number[];
}

export interface FanoutResult {
  /** Median, over the writes, of the write's answer after its event's createdAt: how much of the latency is the write's own. */
  writeAnswerMs: number;
  reconnects: number;
  conditions: Conditions;
  p50: number;
  p99: number;
  slowestMedian: number;
  slowestMax: number;
  verdict: SseVerdict;
  writes: PacedResult;
}

export interface SustainedResult extends FanoutResult {
  deliveredPerSecond: number;
  drainedSeconds: number;
  /** Whether every event had reached every subscriber by then (otherwise the wait gave up). */
  caughtUp: boolean;
  serverCpuUsPerDelivery: number;
  clientCpuPercent: number;
}

export interface SideResult {
  idle?: IdleResult;
  single?: FanoutResult;
  singleSameInstance?: FanoutResult;
  sustained?: SustainedResult;
}

const f = (v: number | undefined, digits = 1) => (v !== undefined && Number.isFinite(v) ? v.toLocaleString('en-GB', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '-');
const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b !== undefined && b > 0 && Number.isFinite(a) ? `${(a / b).toFixed(2)}x` : '-');
const exact = (v: SseVerdict | undefined, subscribers: number) =>
  (v ? `${v.complete} / ${subscribers}${v.complete === subscribers ? '' : ` (short ${v.short}, missing ${v.missing}; over ${v.over}; mismatched ${v.mismatched})`}` : '-');

const others = (r?: FanoutResult) => (r ? `${f(r.conditions.otherWriters * 100, 0)}% (${f(r.conditions.longestOtherWriterMs, 0)})` : '-');
const drained = (r?: SustainedResult) => (r ? `${f(r.drainedSeconds)}${r.caughtUp ? '' : ' (not all yet: gave up)'}` : '-');
const waited = (r?: FanoutResult) => (r ? `${f(r.conditions.serverWaitPercent, 0)}%` : '-');

export function report(PLAN: SubscriptionsPlan, results: Partial<Record<'ours' | 'peer', SideResult>>, pgVersion: string, loads: number[][]): string {
  const { ours, peer } = results;
  const getByIdRatio = (s?: SideResult) => (s?.idle ? median(s.idle.getByIdRatios) : undefined);
  const rounds = (s?: SideResult) => (s?.idle && s.idle.getByIdRatios.length > 1 ? ` (rounds ${s.idle.getByIdRatios.map((r) => r.toFixed(2)).join(', ')})` : '');
  const rows: [string, string, string, string, string][] = [
    [`a. RSS growth per idle subscriber, KB (${PLAN.idle} over ${PLAN.workspaces} workspaces)`, f(ours?.idle?.kbPerSubscriber), f(peer?.idle?.kbPerSubscriber), ratio(ours?.idle?.kbPerSubscriber, peer?.idle?.kbPerSubscriber), '<= 20, at most the peer\'s'],
    ['a. RSS before / with them open, MB', `${f(ours?.idle?.rssBeforeMb, 0)} / ${f(ours?.idle?.rssAfterMb, 0)}`, `${f(peer?.idle?.rssBeforeMb, 0)} / ${f(peer?.idle?.rssAfterMb, 0)}`, '', ''],
    ['a. subscribers opened (s to open them), still open after getById', `${ours?.idle?.opened ?? '-'} (${f(ours?.idle?.openSeconds)}), ${ours?.idle?.stillOpen ?? '-'}`, `${peer?.idle?.opened ?? '-'} (${f(peer?.idle?.openSeconds)}), ${peer?.idle?.stillOpen ?? '-'}`, '', ''],
    ['a. server CPU with none open / with them idle, % of a core', `${f(ours?.idle?.baseCpuPercent)} / ${f(ours?.idle?.idleCpuPercent)}`, `${f(peer?.idle?.baseCpuPercent)} / ${f(peer?.idle?.idleCpuPercent)}`, '', ''],
    [`a. getById req/s with them open / without, the median of ${PLAN.rounds} round${PLAN.rounds > 1 ? 's' : ''}`, `${ours?.idle?.getByIdWith.rps ?? '-'} / ${ours?.idle?.getByIdWithout.rps ?? '-'} = **${f(getByIdRatio(ours), 2)}x**${rounds(ours)}`, `${peer?.idle?.getByIdWith.rps ?? '-'} / ${peer?.idle?.getByIdWithout.rps ?? '-'} = ${f(getByIdRatio(peer), 2)}x${rounds(peer)}`, '', 'ours >= 0.9x'],
    [`b. one event to ${PLAN.fanout} subscribers, createdAt to receipt, p50 / p99 ms`, `${f(ours?.single?.p50)} / **${f(ours?.single?.p99)}**`, `${f(peer?.single?.p50)} / ${f(peer?.single?.p99)}`, `${ratio(ours?.single?.p50, peer?.single?.p50)} / ${ratio(ours?.single?.p99, peer?.single?.p99)}`, 'p99 at most the peer\'s'],
    ['b. the last subscriber to receive an event, median / worst ms', `${f(ours?.single?.slowestMedian)} / ${f(ours?.single?.slowestMax)}`, `${f(peer?.single?.slowestMedian)} / ${f(peer?.single?.slowestMax)}`, '', ''],
    ['b. ours with the write on its own instance: p50 / p99 ms', `${f(ours?.singleSameInstance?.p50)} / ${f(ours?.singleSameInstance?.p99)}`, '', '', ''],
    ['b. the write answered, ms after its createdAt (median; commit is before the answer)', f(ours?.single?.writeAnswerMs), f(peer?.single?.writeAnswerMs), '', ''],
    ['b. samples with another database\'s write transaction open (longest ms)', others(ours?.single), others(peer?.single), '', ''],
    ['b. the server waiting for a core, % of the time', waited(ours?.single), waited(peer?.single), '', ''],
    [`b. subscribers that received each of the ${PLAN.singleEvents} events once`, exact(ours?.single?.verdict, PLAN.fanout), exact(peer?.single?.verdict, PLAN.fanout), '', 'all'],
    [`c. ${PLAN.rate} events/s for ${PLAN.duration} s: subscribers that received every event once`, exact(ours?.sustained?.verdict, PLAN.fanout), exact(peer?.sustained?.verdict, PLAN.fanout), '', 'all'],
    ['c. events delivered per second (over the writing window)', f(ours?.sustained?.deliveredPerSecond, 0), f(peer?.sustained?.deliveredPerSecond, 0), ratio(ours?.sustained?.deliveredPerSecond, peer?.sustained?.deliveredPerSecond), `${PLAN.rate * PLAN.fanout}; at least the peer's`],
    ['c. createdAt to receipt, p50 / p99 ms', `${f(ours?.sustained?.p50)} / **${f(ours?.sustained?.p99)}**`, `${f(peer?.sustained?.p50)} / ${f(peer?.sustained?.p99)}`, `${ratio(ours?.sustained?.p50, peer?.sustained?.p50)} / ${ratio(ours?.sustained?.p99, peer?.sustained?.p99)}`, ''],
    ['c. server CPU per delivered event, µs', f(ours?.sustained?.serverCpuUsPerDelivery), f(peer?.sustained?.serverCpuUsPerDelivery), ratio(ours?.sustained?.serverCpuUsPerDelivery, peer?.sustained?.serverCpuUsPerDelivery), ''],
    ['c. writes answered 200 (writer lag ms); s after the window until all were delivered', `${ours?.sustained?.writes.ok ?? '-'} (${ours?.sustained?.writes.lagMs ?? '-'}); ${drained(ours?.sustained)}`, `${peer?.sustained?.writes.ok ?? '-'} (${peer?.sustained?.writes.lagMs ?? '-'}); ${drained(peer?.sustained)}`, '', ''],
    ['c. the SSE client processes\' CPU, % of a core', f(ours?.sustained?.clientCpuPercent, 0), f(peer?.sustained?.clientCpuPercent, 0), '', ''],
    ['c. streams resumed after being cut (b and c)', String((ours?.sustained?.reconnects ?? 0) + (ours?.single?.reconnects ?? 0)), String((peer?.sustained?.reconnects ?? 0) + (peer?.single?.reconnects ?? 0)), '', ''],
    ['c. samples with another database\'s write transaction open (longest ms)', others(ours?.sustained), others(peer?.sustained), '', ''],
    ['c. the server waiting for a core, % of the time', waited(ours?.sustained), waited(peer?.sustained), '', ''],
  ];
  return [
    `${machineLine(pgVersion)}; load average at start ${loads[0]!.map((l) => l.toFixed(2)).join(' ')}, at end ${loads[1]!.map((l) => l.toFixed(2)).join(' ')}.`,
    `Ours compiled with start:prod's flags, NODE_ENV=production, log at info to /dev/null, rate limits off, SSE_PING_MS=${PLAN.pingMs}; the peer under tsx, tRPC's ping at ${PLAN.pingMs} ms; DB_POOL_MAX=${PLAN.poolMax}; each alone, in the order ${PLAN.sides.join(', ')}, while a second instance of ours takes the writes (leads.create; the fan-out subscribers ask for its lead.created event alone) and wakes both by NOTIFY; ${PLAN.clientProcesses} client processes; getById at 50 connections, ${PLAN.warmup} s warm-up, ${PLAN.seconds} s counted.`,
    '',
    '| | ours | peer | ours / peer | target |',
    '|---|---:|---:|---:|---|',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}
