import { openLargeWorkspace, DEFAULT_BENCH_URL } from './lib/dataset';
import { startServer, buildService, runCannon, serviceEnv, serviceArgs, BENCH_POOL_MAX } from './lib/processes';
import { machineLine, median } from './lib/report';
import type { CannonJob } from './lib/cannon';

// `npx tsx bench/elimination.ts [--rounds 3] [--only name,name] [--baseline-entry DIR/src/index.js]`:
// where getById's time goes beyond the ceiling's, by elimination. Servers made of the service's
// own pieces (bench/servers/composed.ts) serve leads.getById at 50 connections, taking turns
// for several rounds; each piece's cost is the difference of two medians of server CPU per
// request. With --baseline-entry (an older build, as for bench/ratios.ts) it also compares the
// REST list's first page (pageSize 100) of ours and of that build.
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const rounds = Number(arg('--rounds') ?? 3);
const only = arg('--only')?.split(',');
const baselineEntry = arg('--baseline-entry');
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
const TIMING = { connections: 50, warmupSeconds: 3, seconds: 6 };

interface Server { name: string; holds: string; args: string[]; env: Record<string, string>; job(baseUrl: string): Omit<CannonJob, keyof typeof TIMING> }

async function main(): Promise<void> {
  const large = await openLargeWorkspace(url);
  const { key, sample, pgVersion } = large;

  const env = { DATABASE_URL: url, DB_POOL_MAX: BENCH_POOL_MAX };
  const oursEnv = serviceEnv(url);
  const headers = { Authorization: `Bearer ${key}` };
  const getById = (base: string) => ({ url: `${base}/api/v1/rpc/leads.getById?input=${encodeURIComponent(JSON.stringify({ json: { id: sample.leadId } }))}`, headers });
  const list = (base: string) => ({ url: `${base}/api/v1/leads?pageSize=100`, headers });
  const composed = (name: string, holds: string): Server => ({
    name, holds, args: ['--import', 'tsx', 'bench/servers/composed.ts'], env: { ...env, VARIANT: name, ORG_ID: large.orgId }, job: getById,
  });
  const ours = buildService();
  const all: Server[] = [
    { name: 'ceiling', holds: 'bench/servers/ceiling.ts: Express, the query, res.json', args: ['--import', 'tsx', 'bench/servers/ceiling.ts'], env, job: (b) => ({ url: `${b}/leads/${large.orgId}/${sample.leadId}` }) },
    { name: 'ceiling on the service server', holds: 'the same, on createHttpServer (requests born on Express\'s prototypes), as every server below', args: ['--import', 'tsx', 'bench/servers/ceiling.ts'], env: { ...env, HTTP_SERVER: 'service' }, job: (b) => ({ url: `${b}/leads/${large.orgId}/${sample.leadId}` }) },
    composed('route', 'our action route: envelope in, the query, encodeResult, sendJson'),
    composed('route+log', '+ the request log line and metrics'),
    composed('route+log+edge', '+ helmet and CORS headers (edgeHeaders)'),
    composed('route+log+edge+auth', '+ API key verification (cached)'),
    composed('app', 'createApp: the dispatcher and every router, no statement timeout'),
    composed('app:log-sync', 'createApp, log lines written synchronously'),
    composed('app:log-buffered', 'createApp, log lines buffered to 4 KB'),
    { name: 'ours', holds: 'the compiled service (index.ts: statement timeout, key-change listener)', args: serviceArgs(ours), env: oursEnv, job: getById },
    { name: 'ours LOG_LEVEL=warn', holds: 'the same without request log lines', args: serviceArgs(ours), env: { ...oursEnv, LOG_LEVEL: 'warn' }, job: getById },
    { name: 'ours V8 defaults', holds: "the same without start:prod's node flags (--heap-growing-percent)", args: [ours], env: oursEnv, job: getById },
    { ...composed('static-page', 'a 47 KB list-sized answer from memory (no database)'), job: (b) => ({ url: `${b}/api/v1/rpc/static` }) },
    ...(baselineEntry
      ? [
        { name: 'list ours', holds: 'REST first page, pageSize 100, this build', args: serviceArgs(ours), env: oursEnv, job: list },
        { name: 'list baseline', holds: 'the same, the baseline build', args: serviceArgs(baselineEntry), env: oursEnv, job: list },
      ]
      : []),
  ];
  const servers = only ? all.filter((s) => only.includes(s.name)) : all;
  const results = new Map<string, { rps: number; cpu: number; databaseCpu: number }[]>(servers.map((s) => [s.name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const s of servers) {
      const server = await startServer(s.name, s.args, s.env);
      try {
        const r = await runCannon({ ...s.job(server.baseUrl), ...TIMING }, server.pid);
        if (r.errors + r.non2xx > 0) throw new Error(`${s.name}: ${r.errors} errors, ${r.non2xx} non-2xx`);
        results.get(s.name)!.push({ rps: r.rps, cpu: r.serverCpuUsPerRequest ?? NaN, databaseCpu: r.databaseCpuUsPerRequest ?? NaN });
        process.stderr.write(`round ${round} ${s.name}: ${Math.round(r.rps)} req/s, ${r.serverCpuUsPerRequest} us/request, database ${r.databaseCpuUsPerRequest} us/request\n`);
      } finally {
        await server.stop();
      }
    }
  }
  const lines = [
    `${machineLine(pgVersion)}; ${rounds} rounds taking turns, ${TIMING.connections} connections, ${TIMING.warmupSeconds} s warm-up and ${TIMING.seconds} s counted each; medians.`,
    '',
    '| server | holds | median req/s | median server CPU µs/request | median database CPU µs/request |',
    '|---|---|---:|---:|---:|',
    ...servers.map((s) => {
      const r = results.get(s.name)!;
      return `| ${s.name} | ${s.holds} | ${Math.round(median(r.map((x) => x.rps)))} | ${median(r.map((x) => x.cpu))} | ${median(r.map((x) => x.databaseCpu))} |`;
    }),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
