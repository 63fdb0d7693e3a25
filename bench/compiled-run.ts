import { connectDatabase } from '../src/db/connect';
import * as leadsQueries from '../src/db/queries/leads.queries';
import { withStatementName, statementNameOf, TIMESTAMPS_AS_TEXT } from '../src/db/prepared-statements';
import { BENCH_POOL_MAX } from './lib/processes';
import { openLargeWorkspace, DEFAULT_BENCH_URL } from './lib/dataset';
import { machineLine, median } from './lib/report';

// `npx tsx bench/compiled-run.ts [rounds]`: Node's CPU per call of the REST list's first page
// (the million-lead workspace, unfiltered and by status) run two ways in this one process, 10
// calls at a time on the service's two pools: the compiled statement through knex's query runner
// (`db.raw`, as the service ran it before), and straight on a pooled connection (`rows()`, as it
// runs now). The same text, name, values and type parsers; the ways take turns.
const rounds = Number(process.argv[2] ?? 5);
const CALLS = 4000;
const CONCURRENCY = 10;
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;

async function cpuPerCall(call: () => Promise<unknown>): Promise<number> {
  let started = 0;
  const worker = async () => {
    while (started++ < CALLS) await call();
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker)); // warm-up
  started = 0;
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const used = process.cpuUsage(before);
  return Math.round((used.user + used.system) / CALLS);
}

async function main(): Promise<void> {
  const { orgId, pgVersion } = await openLargeWorkspace(url);
  const database = await connectDatabase({ url, embeddedDir: '', poolMax: Number(BENCH_POOL_MAX), migrate: false, namedStatements: true, statementTimeoutMs: 15_000 });
  const { db } = database;
  const pool = database.compiledStatementsDb!;
  const results: Record<string, number[]> = {};
  const filterCases: [string, leadsQueries.LeadListFilters][] = [['none', {}], ['status', { status: 'QUALIFIED' }]];
  for (let round = 1; round <= rounds; round++) {
    for (const [label, filters] of filterCases) {
      const args: leadsQueries.PageArgs = { orgId, filters, position: { page: 1, pageSize: 100 }, as: 'json', withTotal: true };
      const { sql, bindings } = leadsQueries.pageStatement(db, args).toSQL();
      const ways: [string, () => Promise<unknown>][] = [
        ['knex runner', () => withStatementName(pool, pool.raw(sql, [...bindings]), statementNameOf(sql)).options({ types: TIMESTAMPS_AS_TEXT }).then((r) => r)],
        ['pooled connection', () => leadsQueries.compiledPageStatement(db, args).rows(TIMESTAMPS_AS_TEXT)],
      ];
      for (const [way, call] of round % 2 ? ways : [...ways].reverse()) {
        const us = await cpuPerCall(call);
        (results[`${label} | ${way}`] ??= []).push(us);
        process.stderr.write(`round ${round} ${label} ${way}: ${us} µs\n`);
      }
    }
  }
  await database.close();
  console.log(`${machineLine(pgVersion)}; ${rounds} rounds taking turns, ${CALLS} calls ${CONCURRENCY} at a time per way; medians.\n`);
  console.log('| first page | run through | Node CPU µs per call |\n|---|---|---:|');
  for (const [key, values] of Object.entries(results)) console.log(`| ${key} | ${median(values)} |`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
