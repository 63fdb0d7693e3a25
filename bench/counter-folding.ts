import { openBenchDatabase, ensureWorkspace, createBenchKey, DEFAULT_BENCH_URL, LARGE_WORKSPACE, postgresVersion } from './lib/dataset';
import { startServer, buildService, runCannon, serviceEnv, serviceArgs } from './lib/processes';
import { machineLine, median } from './lib/report';
import { foldAllCounterShards } from '../src/db/counter-folding';
import type { Db } from '../src/db/knex';

// `npx tsx bench/counter-folding.ts [rounds]`: the REST first page of the million-lead workspace
// (unfiltered and by status, 50 connections) with its counters spread over all 16 shards of each
// group, as months of writes leave them, and folded to a row per group, as the service's periodic
// fold leaves them; the same build and server in both, the two taking turns (which goes first
// alternates). Leaves the counters folded.
const rounds = Number(process.argv[2] ?? 3);
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
const CASES: [string, Record<string, string>][] = [['none', {}], ['status', { status: 'QUALIFIED' }]];
const TIMING = { connections: 50, warmupSeconds: 2, seconds: 6 };

/** Rewrites each of the workspace's counter groups as 16 shards with the same sum (one transaction: totals stay exact). */
async function spread(db: Db, orgId: string): Promise<void> {
  await db.raw(
    `with removed as (delete from lead_counts where org_id = ? returning status, assignee_key, n),
     groups as (select status, assignee_key, sum(n) as total from removed group by status, assignee_key)
     insert into lead_counts (org_id, status, assignee_key, shard, n)
     select ?, status, assignee_key, s, total / 16 + case when s = 0 then total % 16 else 0 end
     from groups, generate_series(0, 15) s`,
    [orgId, orgId],
  );
}

async function main(): Promise<void> {
  const db = await openBenchDatabase(url);
  const { orgId } = await ensureWorkspace(db, LARGE_WORKSPACE, 1_000_000);
  const key = await createBenchKey(db, orgId);
  const pgVersion = await postgresVersion(db);
  const entry = buildService();
  const results: Record<string, Record<string, { rps: number[]; cpu: number[]; dbCpu: number[] }>> = {};
  const rowsOf = async () => Number((await db('lead_counts').where('org_id', orgId).count({ n: '*' }))[0]!.n);
  const rowCounts: Record<string, number> = {};
  for (let round = 1; round <= rounds; round++) {
    // The server folds at its start; the counters are set up after it, and it folds again only after a minute.
    const server = await startServer('ours', serviceArgs(entry), serviceEnv(url));
    try {
      await new Promise((done) => setTimeout(done, 1000));
      const states = round % 2 ? ['spread over 16 shards', 'folded'] : ['folded', 'spread over 16 shards'];
      for (const state of states) {
        if (state === 'folded') await foldAllCounterShards(db);
        else await spread(db, orgId);
        rowCounts[state] = await rowsOf();
        for (const [name, filters] of CASES) {
          const target = `${server.baseUrl}/api/v1/leads?${new URLSearchParams({ pageSize: '100', ...filters })}`;
          const r = await runCannon({ url: target, headers: { Authorization: `Bearer ${key}` }, ...TIMING }, server.pid);
          const cell = ((results[state] ??= {})[name] ??= { rps: [], cpu: [], dbCpu: [] });
          cell.rps.push(r.rps);
          cell.cpu.push(r.serverCpuUsPerRequest ?? NaN);
          cell.dbCpu.push(r.databaseCpuUsPerRequest ?? NaN);
          process.stderr.write(`round ${round} ${state} ${name}: ${r.rps} req/s, server ${r.serverCpuUsPerRequest} us, database ${r.databaseCpuUsPerRequest} us\n`);
        }
      }
    } finally {
      await server.stop();
    }
  }
  await foldAllCounterShards(db);
  await db.destroy();
  console.log(`${machineLine(pgVersion)}; ${rounds} rounds taking turns, ${TIMING.connections} connections, ${TIMING.warmupSeconds} s warm-up and ${TIMING.seconds} s counted each; medians.\n`);
  console.log('| counters | rows for the workspace | filter | req/s | server CPU µs | database CPU µs |');
  console.log('|---|---:|---|---:|---:|---:|');
  for (const [state, byCase] of Object.entries(results)) {
    for (const [name, cell] of Object.entries(byCase)) {
      console.log(`| ${state} | ${rowCounts[state]} | ${name} | ${median(cell.rps)} | ${median(cell.cpu)} | ${median(cell.dbCpu)} |`);
    }
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
