import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
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

export function table(rows: Row[]): string {
  const lines = ['| case | conns | req/s | p50 ms | tail ms | errors/non-2xx |', '|---|---:|---:|---:|---:|---:|'];
  for (const row of rows) {
    const r = row.result;
    lines.push(`| ${row.name} | ${row.connections} | ${r.rps} | ${ms(r.p50)} | ${row.tail} ${ms(r[row.tail])} | ${r.errors}/${r.non2xx} |`);
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

const LIMITS = `### What limits each number
- **getById (ceiling, peer, ours)**: one primary-key lookup joined to its contact, well under a millisecond in PostgreSQL; at 50 connections the Node process's CPU is the limit (JSON, HTTP parsing; for ours also helmet, the request log line, the key cache and the envelope; for the peer the tRPC adapter's fetch Request/Response conversion). Ratios are the comparable figures; absolute req/s move with the machine's load.
- **create (ours, insert ceilings)**: a transaction of two statements (the contact; the lead with its two events) and no read-back, the same in ours and in the insert ceiling; limited by PostgreSQL's commit (WAL flush) and index maintenance, plus for ours authentication, validation, phone normalisation and the envelope. The ceiling without events (contact and lead only) is the ceiling as it was before leads.create recorded events.
- **list first page**: the page itself is an index range scan in the list's order; the exact total is what costs unless it is read from maintained counters. Search is bounded by the trigram index (rare terms) or by counting every match (common terms).
- **deep page / walk by page**: OFFSET reads and discards every earlier row, so page N costs O(N) and a full walk O(N^2); a cursor (keyset) walk is O(N).
- **RSS**: the peak resident memory of our server process while it served the 50-connection cases.
`;

/** Appends one run to BENCHMARKS.md (created with a title when missing). */
export function appendRun(path: string, heading: string, body: string): void {
  if (!existsSync(path)) writeFileSync(path, '# Benchmarks\n\nEach run of `npm run bench` (or `npm run bench -- --quick`) appends a section.\n');
  appendFileSync(path, `\n## ${heading}\n\n${body}\n\n${LIMITS}`);
}

/** The nearest-rank `p`th percentile (0-100) of values sorted ascending; NaN when there are none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The middle value (the upper one of an even count): what the round-taking benchmarks report. */
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
