import { cpus } from 'node:os';
import type { CannonResult } from './cannon';
import type { WalkResult } from './walk';

export interface Row {
  name: string;
  connections: number;
  result: CannonResult;
  /** Which percentile the targets ask for beside p50 (p95 at 10 and 1 connections). */
  tail: 'p99' | 'p95';
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : '-');

/** With `cpu`, two more columns: the server's and PostgreSQL's CPU time per request (runCannon's, given the server's pid). */
export function table(rows: Row[], options: { cpu?: boolean } = {}): string {
  const cpu = options.cpu ?? false;
  const lines = [
    `| case | conns | req/s | p50 ms | tail ms |${cpu ? ' server CPU µs/req | PostgreSQL CPU µs/req |' : ''} errors/non-2xx |`,
    `|---|---:|---:|---:|---:|${cpu ? '---:|---:|' : ''}---:|`,
  ];
  for (const row of rows) {
    const r = row.result;
    const cpuCells = cpu ? ` ${r.serverCpuUsPerRequest ?? '-'} | ${r.databaseCpuUsPerRequest ?? '-'} |` : '';
    lines.push(`| ${row.name} | ${row.connections} | ${r.rps} | ${ms(r.p50)} | ${row.tail} ${ms(r[row.tail])} |${cpuCells} ${r.errors}/${r.non2xx} |`);
  }
  return lines.join('\n');
}

export function walkLine(w: WalkResult): string {
  return `- full walk by \`${w.mode}\`: ${w.ids} ids in ${w.pages} pages, ${w.seconds} s, every id exactly once: ${w.everyIdOnce ? 'yes' : 'NO'}`;
}

export function machineLine(postgresVersion: string): string {
  const cpu = cpus();
  return `${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown'}), Node ${process.version}, ${postgresVersion.split(' on ')[0]}`;
}

/** The nearest-rank `p`th percentile (0-100) of values sorted ascending; NaN when there are none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The middle value (the upper one of an even count): what the round-taking benchmarks report. */
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
