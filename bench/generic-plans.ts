import { performance } from 'node:perf_hooks';
import { createDb, type Db } from '../src/db/knex';
import * as leadsQueries from '../src/db/queries/leads.queries';
import { openLargeWorkspace, DEFAULT_BENCH_URL } from './lib/dataset';
import { postgresCpuTimeUs } from './lib/processes';
import { machineLine, median } from './lib/report';

// `npx tsx bench/generic-plans.ts [--rounds 5]`: what PostgreSQL's re-planning of the prepared
// first pages costs on the million-lead workspace. bench/explain.ts shows it plans each call
// afresh (custom plans): the generic plan has the same shape, but is costed for an average-sized
// workspace and so looks dearer. One session calls each first page in turn with plan_cache_mode
// `auto` (the service's setting) and `force_generic_plan`, for several rounds; it prints the
// medians of the database's CPU and the wall time per call (one call at a time, so the wall time
// is Node's and PostgreSQL's work plus a round trip).
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const rounds = Number(arg('--rounds') ?? 5);
const CALLS = 300;
const MODES = ['auto', 'force_generic_plan'] as const;
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;

async function timeCalls(session: Db, call: () => Promise<unknown>): Promise<{ wallUs: number; databaseUs: number }> {
  const started = performance.now();
  const cpuBefore = postgresCpuTimeUs();
  for (let i = 0; i < CALLS; i++) await call();
  return { wallUs: ((performance.now() - started) * 1000) / CALLS, databaseUs: (postgresCpuTimeUs() - cpuBefore) / CALLS };
}

async function main(): Promise<void> {
  const { orgId, sample, pgVersion } = await openLargeWorkspace(url);
  const cases: [string, leadsQueries.LeadListFilters][] = [
    ['no filter', {}],
    ['status=QUALIFIED', { status: 'QUALIFIED' }],
    ['assignedToId (top member)', { assignedToId: sample.assigneeId }],
    ['unassigned', { assignedToId: 'unassigned' }],
  ];
  const lines = [
    `${machineLine(pgVersion)}; first pages (pageSize 100) as the REST list reads them, one session, ${CALLS} calls a turn, ${rounds} rounds taking turns; medians.`,
    '',
    '| case | database CPU µs/call, auto | database CPU µs/call, generic | wall µs/call, auto | wall µs/call, generic |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const [name, filters] of cases) {
    // A session of its own per case, so each prepares only its statement.
    const session = createDb({ url, poolMax: 1, namedStatements: true });
    const call = () => leadsQueries.listAsJson(session, orgId, filters, { page: 1, pageSize: 100 });
    const results = new Map<string, { wallUs: number; databaseUs: number }[]>(MODES.map((m) => [m, []]));
    try {
      for (let i = 0; i < 10; i++) await call();
      for (let round = 0; round < rounds; round++) {
        for (const mode of MODES) {
          await session.raw(`set plan_cache_mode = ${mode}`);
          results.get(mode)!.push(await timeCalls(session, call));
        }
      }
    } finally {
      await session.destroy();
    }
    const of = (mode: string, field: 'wallUs' | 'databaseUs') => Math.round(median(results.get(mode)!.map((r) => r[field])));
    lines.push(`| ${name} | ${of('auto', 'databaseUs')} | ${of('force_generic_plan', 'databaseUs')} | ${of('auto', 'wallUs')} | ${of('force_generic_plan', 'wallUs')} |`);
    process.stderr.write(`${lines.at(-1)}\n`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
