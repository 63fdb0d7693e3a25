import { openBenchDatabase, readsWorkspace, createBenchKey, writesWorkspaceId, DEFAULT_BENCH_URL, LARGE_WORKSPACE } from './lib/dataset';
import { startServer, buildService, runCannon, serviceEnv, serviceArgs, postmasterOf } from './lib/processes';
import { machineLine, median } from './lib/report';
import type { CannonResult } from './lib/cannon';

// `npx tsx bench/request-log.ts [--rounds 3] [--quick]`: what each key's request log (issue 52)
// costs leads.getById and leads.create at 50 connections: the same build with REQUEST_LOG=on
// (every request recorded and written by the background writer to the same database) against
// REQUEST_LOG=off. The servers take turns, the order reversed every other round; medians, and
// each round's pair as a ratio (cancels the machine's drift between rounds).
// `--quick`: a 10,000-lead workspace (loaded on first use) instead of the million-lead one, 2 s + 5 s cases.
// `--fixed-rate`: each case at a fixed rate below this machine's saturation (getById 1,500/s, create
// 300/s), where the CPU a request costs the server and PostgreSQL compares without the contention
// for two cores that a saturated run adds to whichever side does more.
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const quick = process.argv.includes('--quick');
const rounds = Number(arg('--rounds') ?? 3);
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
const CONNECTIONS = 50;
const TIMING = quick ? { warmupSeconds: 2, seconds: 5 } : { warmupSeconds: 3, seconds: 8 };
const QUICK_WORKSPACE = 'bench request log reads 10000';
const CASES = ['leads.getById', 'leads.create'] as const;
const FIXED_RATES = { 'leads.getById': 1500, 'leads.create': 300 } as const;
const fixedRate = process.argv.includes('--fixed-rate');

async function main(): Promise<void> {
  const { key, sample, pgVersion } = await readsWorkspace(url, quick, QUICK_WORKSPACE);
  const benchDb = await openBenchDatabase(url);
  const postmasterPid = postmasterOf(Number((await benchDb.raw('select pg_backend_pid() as pid')).rows[0].pid));
  // Creates go to a workspace of their own, so the read workspace keeps its size between runs.
  const writesKey = await createBenchKey(benchDb, await writesWorkspaceId(benchDb, 'bench request log writes'));
  const rowsBefore = Number((await benchDb.raw('select coalesce(sum(cardinality(ids)), 0) as n from api_key_request_batches')).rows[0].n);
  const ours = buildService();
  const input = encodeURIComponent(JSON.stringify({ json: { id: sample.leadId } }));
  const runTag = Date.now().toString(36);
  const servers = [
    { name: 'log off', env: { ...serviceEnv(url), REQUEST_LOG: 'off' } },
    { name: 'log on', env: { ...serviceEnv(url), REQUEST_LOG: 'on' } },
  ];
  const results = new Map<string, CannonResult[]>(servers.flatMap((s) => CASES.map((c) => [`${s.name} ${c}`, []])));
  const jobOf = (baseUrl: string, name: (typeof CASES)[number], round: number, server: string) => {
    const headers = { Authorization: `Bearer ${key}` };
    if (name === 'leads.getById') return { url: `${baseUrl}/api/v1/rpc/leads.getById?input=${input}`, headers };
    const bodies = Array.from({ length: 5000 }, (_, i) => JSON.stringify({ json: { name: `Request log bench ${runTag} ${round} ${server} ${i}`, phone: `+4477${String(i).padStart(8, '0')}` } }));
    return { url: `${baseUrl}/api/v1/rpc/leads.create`, method: 'POST' as const, headers: { Authorization: `Bearer ${writesKey}`, 'content-type': 'application/json' }, bodies };
  };
  for (let round = 1; round <= rounds; round++) {
    for (const s of round % 2 === 0 ? [...servers].reverse() : servers) {
      const server = await startServer(s.name, serviceArgs(ours), s.env);
      try {
        for (const name of CASES) {
          const rate = fixedRate ? { rate: FIXED_RATES[name] } : {};
          const result = await runCannon({ ...jobOf(server.baseUrl, name, round, s.name), connections: CONNECTIONS, ...TIMING, ...rate }, server.pid, postmasterPid);
          if (result.errors + result.non2xx > 0) throw new Error(`${s.name} ${name}: ${result.errors} errors, ${result.non2xx} non-2xx`);
          results.get(`${s.name} ${name}`)!.push(result);
          process.stderr.write(`round ${round} ${s.name} ${name}: ${Math.round(result.rps)} req/s, server ${result.serverCpuUsPerRequest} us/request, PostgreSQL ${result.databaseCpuUsPerRequest} us/request\n`);
        }
      } finally {
        await server.stop();
      }
    }
  }
  const rowsAfter = Number((await benchDb.raw('select coalesce(sum(cardinality(ids)), 0) as n from api_key_request_batches')).rows[0].n);
  await benchDb.destroy();
  const rps = (label: string) => median(results.get(label)!.map((r) => r.rps));
  const cpu = (label: string) => median(results.get(label)!.map((r) => r.serverCpuUsPerRequest ?? NaN));
  const dbCpu = (label: string) => median(results.get(label)!.map((r) => r.databaseCpuUsPerRequest ?? NaN));
  const paired = (a: string, b: string) => {
    const each = results.get(a)!.map((r, i) => r.rps / results.get(b)![i]!.rps);
    return `${median(each).toFixed(2)}x (rounds ${each.map((e) => e.toFixed(2)).join(', ')})`;
  };
  const lines = [
    `${machineLine(pgVersion)}; ${quick ? QUICK_WORKSPACE : LARGE_WORKSPACE}; ${rounds} rounds taking turns, ${CONNECTIONS} connections${fixedRate ? ' at a fixed rate' : ''}, ${TIMING.warmupSeconds} s warm-up and ${TIMING.seconds} s counted each; medians.`,
    '',
    '| server | case | req/s (each round) | median req/s | median server CPU µs/request | median PostgreSQL CPU µs/request |',
    '|---|---|---|---:|---:|---:|',
    ...servers.flatMap((s) => CASES.map((c) => `${s.name} ${c}`).map((label) => {
      const [server, ...rest] = [label.split(' ').slice(0, 2).join(' '), label.split(' ').slice(2).join(' ')];
      return `| ${server} | ${rest.join('')} | ${results.get(label)!.map((r) => Math.round(r.rps)).join(', ')} | ${Math.round(rps(label))} | ${cpu(label)} | ${dbCpu(label)} |`;
    })),
    '',
    ...CASES.map((c) => {
      const [on, off] = [`log on ${c}`, `log off ${c}`];
      const cpuAdded = `CPU a request, on - off: server ${cpu(on) - cpu(off)} µs (${(cpu(on) / cpu(off)).toFixed(2)}x), PostgreSQL ${dbCpu(on) - dbCpu(off)} µs (${(dbCpu(on) / dbCpu(off)).toFixed(2)}x)`;
      // At a fixed rate both servers answer the same req/s: only the CPU compares.
      if (fixedRate) return `- ${c}: ${cpuAdded}`;
      return `- ${c}, log on / off: **${(rps(on) / rps(off)).toFixed(2)}x** (target >= 0.95); paired by round ${paired(on, off)}; ${cpuAdded}`;
    }),
    `- request log rows written during the run: ${rowsAfter - rowsBefore}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
