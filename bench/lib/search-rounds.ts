import { performance } from 'node:perf_hooks';
import type { Db } from '../../src/db/knex';
import * as leadsQueries from '../../src/db/queries/leads.queries';
import { toSearchTerm } from '../../src/domain/phone';
import { median, percentile } from './report';

/** The list's search cases on the million-lead workspace: a common term, a rare one, a phone fragment. */
export function searchCases(sample: { rareTerm: string; phoneFragment: string }): [label: string, term: string][] {
  return [['common "Patel"', 'Patel'], [`rare "${sample.rareTerm}"`, sample.rareTerm], [`phone "${sample.phoneFragment}"`, sample.phoneFragment]];
}

/**
 * Each search case's p50 and p95, per variant and round, for scripts that compare variants of
 * the database taking turns (search-indexes.ts, pending-lists.ts).
 */
export class SearchRounds<Variant extends string> {
  private readonly results = new Map<string, Map<Variant, { p50: number[]; p95: number[] }>>();

  constructor(private readonly cases: [string, string][], private readonly calls: number) {}

  /** Calls the REST list's first page (its count too when full) `calls` times a case, one at a time, on `db`. */
  async measure(db: Db, orgId: string, variant: Variant, round: number): Promise<void> {
    for (const [label, term] of this.cases) {
      const filters = { search: toSearchTerm(term) };
      const times: number[] = [];
      for (let i = 0; i < this.calls; i++) {
        const started = performance.now();
        await leadsQueries.listAsJson(db, orgId, filters, { page: 1, pageSize: 100 });
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      const [p50, p95] = [percentile(times, 50), percentile(times, 95)];
      const byVariant = this.results.get(label) ?? new Map<Variant, { p50: number[]; p95: number[] }>();
      this.results.set(label, byVariant);
      const cell = byVariant.get(variant) ?? { p50: [], p95: [] };
      byVariant.set(variant, cell);
      cell.p50.push(p50);
      cell.p95.push(p95);
      process.stderr.write(`round ${round} ${variant} ${label}: p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms\n`);
    }
  }

  /** A markdown table of the medians of the rounds' p50 and p95 per case and variant, in ms. */
  table(variants: readonly Variant[]): string[] {
    const cell = (label: string, variant: Variant, which: 'p50' | 'p95') => median(this.results.get(label)?.get(variant)?.[which] ?? []).toFixed(1);
    return [
      `| case | ${variants.map((v) => `p50, ${v}`).join(' | ')} | ${variants.map((v) => `p95, ${v}`).join(' | ')} |`,
      `|---|${variants.map(() => '---:').join('|')}|${variants.map(() => '---:').join('|')}|`,
      ...this.cases.map(([label]) =>
        `| ${label} | ${variants.map((v) => cell(label, v, 'p50')).join(' | ')} | ${variants.map((v) => cell(label, v, 'p95')).join(' | ')} |`),
    ];
  }
}
