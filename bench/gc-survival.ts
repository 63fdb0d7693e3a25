import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLargeWorkspace, DEFAULT_BENCH_URL } from './lib/dataset';
import { startServer, buildService, runCannon, serviceEnv, serviceArgs, BENCH_POOL_MAX } from './lib/processes';
import { PROFILE_CASES } from './lib/profile-cases';
import { machineLine } from './lib/report';
import type { CannonJob } from './lib/cannon';

// `npx tsx bench/gc-survival.ts [connections...]` (1 and 50 by default): how much of what a request
// allocates lives through a scavenge, the young generation's collection. What survives twice is
// promoted into old space, and old space's growth is what start:prod's --heap-growing-percent turns
// into more frequent mark-compacts. Each server runs with V8's defaults and --trace-gc-nvp, whose
// scavenge lines give the bytes allocated, surviving (copied within the young generation) and
// promoted; the lines of the counted run are summed and divided by its requests. At one
// connection a request has the process to itself, so whatever survives there outlived its request.
// Then ours under start:prod's flags at the fixed rates of lib/profile-cases.ts, where its frequent
// mark-compacts once let a chain of dropped Set tables promote every request (docs/performance.md,
// "In-flight answers in reused slots"); `--baseline-entry DIR/src/index.js` adds an older build's rows.
const baselineAt = process.argv.indexOf('--baseline-entry');
const baselineEntry = baselineAt > 0 ? process.argv[baselineAt + 1] : undefined;
const connectionCounts = process.argv.slice(2).map(Number).filter((n) => n > 0);
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
const TIMING = { warmupSeconds: 3, seconds: 8 };

interface Scavenge { atMs: number; allocated: number; survived: number; promoted: number }

/** The scavenges (gc=s) and the count of mark-compacts (gc=mc) after `fromMs` in a --trace-gc-nvp log. */
function readTrace(text: string, fromMs: number): { scavenges: Scavenge[]; markCompacts: number } {
  const scavenges: Scavenge[] = [];
  let markCompacts = 0;
  for (const line of text.split('\n')) {
    const at = /^\[\d+:0x[0-9a-f]+\]\s+(\d+) ms: /.exec(line);
    if (!at || Number(at[1]) < fromMs) continue;
    const field = (name: string) => Number(new RegExp(` ${name}=(\\d+)`).exec(line)?.[1] ?? 0);
    if (line.includes(' gc=s ')) scavenges.push({ atMs: Number(at[1]), allocated: field('allocated'), survived: field('new_space_survived'), promoted: field('promoted') });
    else if (line.includes(' gc=mc ')) markCompacts++;
  }
  return { scavenges, markCompacts };
}

async function main(): Promise<void> {
  const { orgId, key, sample, pgVersion } = await openLargeWorkspace(url);
  const entry = buildService();
  const dir = mkdtempSync(join(tmpdir(), 'wsapi-gc-'));
  const authorization = { Authorization: `Bearer ${key}` };
  type Server = { name: string; args: string[]; env: Record<string, string>; job(base: string): Pick<CannonJob, 'url' | 'headers'> };
  const getById = (base: string) => ({ url: `${base}/api/v1/rpc/leads.getById?input=${encodeURIComponent(JSON.stringify({ json: { id: sample.leadId } }))}`, headers: authorization });
  const firstPage = (base: string) => ({ url: `${base}/api/v1/leads?pageSize=100`, headers: authorization });
  const servers: Server[] = [
    {
      name: 'ceiling: bare Express getById', args: ['--import', 'tsx', 'bench/servers/ceiling.ts'], env: { DATABASE_URL: url, DB_POOL_MAX: BENCH_POOL_MAX },
      job: (base) => ({ url: `${base}/leads/${orgId}/${sample.leadId}` }),
    },
    {
      name: "ceiling on the service's HTTP server", args: ['--import', 'tsx', 'bench/servers/ceiling.ts'], env: { DATABASE_URL: url, DB_POOL_MAX: BENCH_POOL_MAX, HTTP_SERVER: 'service' },
      job: (base) => ({ url: `${base}/leads/${orgId}/${sample.leadId}` }),
    },
    {
      name: 'ours: leads.getById', args: [entry], env: serviceEnv(url, 'warn'), job: getById,
    },
    {
      name: 'ours: list first page', args: [entry], env: serviceEnv(url, 'warn'), job: firstPage,
    },
  ];
  // As production runs: start:prod's flags, the request log on; each case at its profiling rate.
  const underProdFlags = (label: string, at: string): [Server, { connections: number; rate: number }][] => [
    [{ name: `${label}: leads.getById, start:prod flags`, args: serviceArgs(at), env: serviceEnv(url), job: getById }, PROFILE_CASES.getById],
    [{ name: `${label}: list first page, start:prod flags`, args: serviceArgs(at), env: serviceEnv(url), job: firstPage }, PROFILE_CASES.list],
  ];
  const runs: [Server, { connections: number; rate?: number }][] = [
    ...(connectionCounts.length ? connectionCounts : [1, 50]).flatMap((connections) => servers.map((s): [Server, { connections: number }] => [s, { connections }])),
    ...underProdFlags('ours', entry),
    ...(baselineEntry ? underProdFlags('baseline', baselineEntry) : []),
  ];
  const rows: string[] = [];
  for (const [s, { connections, rate }] of runs) {
    const log = join(dir, 'trace.log');
    const startedAt = Date.now();
    const server = await startServer(s.name, ['--trace-gc-nvp', ...s.args], s.env, log);
    let result;
    try {
      result = await runCannon({ ...s.job(server.baseUrl), connections, rate, ...TIMING }, server.pid);
    } finally {
      await server.stop();
    }
    // The counted run is the last TIMING.seconds before the load ended.
    const countedFromMs = Date.now() - startedAt - TIMING.seconds * 1000;
    const { scavenges, markCompacts } = readTrace(readFileSync(log, 'utf8'), countedFromMs);
    const sum = (pick: (x: Scavenge) => number) => scavenges.reduce((a, x) => a + pick(x), 0);
    const perRequest = (bytes: number) => Math.round(bytes / result.requests);
    const allocated = sum((x) => x.allocated);
    const survived = sum((x) => x.survived);
    const promoted = sum((x) => x.promoted);
    rows.push(`| ${s.name} | ${connections} | ${Math.round(result.rps)} | ${result.serverCpuUsPerRequest} | ${scavenges.length} | ${perRequest(allocated)} | ${perRequest(survived)} (${Math.round((100 * survived) / allocated)}%) | ${perRequest(promoted)} | ${markCompacts} |`);
    process.stderr.write(`${rows.at(-1)}\n`);
  }
  process.stdout.write([
    `${machineLine(pgVersion)}; V8's defaults and full speed, except the rows under start:prod's flags (at ${PROFILE_CASES.getById.rate} req/s for getById, ${PROFILE_CASES.list.rate} for the list, with the request log on); ${TIMING.warmupSeconds} s warm-up, ${TIMING.seconds} s counted per row.`,
    '',
    '| server | conns | req/s | server CPU µs/request | scavenges | bytes allocated per request | surviving a scavenge (share) | promoted per request | mark-compacts |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n') + '\n');
}

main().then(() => process.exit(0), (err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
