import { spawn } from 'node:child_process';
import { openBenchDatabase, readsWorkspace, baselineKeys, DEFAULT_BENCH_URL, LARGE_WORKSPACE } from './lib/dataset';
import { startServer, buildService, runCannon, serviceEnv, serviceArgs, postmasterOf } from './lib/processes';
import { machineLine, median } from './lib/report';
import type { CannonResult } from './lib/cannon';

// `npx tsx bench/tracing.ts [--rounds 3] [--quick] [--baseline-entry DIR/src/index.js [--baseline-database URL]]`:
// what tracing costs leads.getById at 50 connections (issue 51's targets): the same build with
// tracing on (every span sampled, exported over OTLP/HTTP protobuf to a receiver that accepts and
// discards, in a process of its own so it does not share the server's event loop) against tracing
// off; with --baseline-entry, tracing off against an older build too (the schema changed with the
// events' trace_parent column: give the older build a copy of the database from before it, as
// docs/benchmarking.md says). The servers take turns, the order reversed every other round;
// medians, and each round's pair as a ratio (cancels the machine's drift between rounds).
// `--quick`: a 10,000-lead workspace (loaded on first use) instead of the million-lead one, 2 s + 5 s cases.
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const quick = process.argv.includes('--quick');
const rounds = Number(arg('--rounds') ?? 3);
const baselineEntry = arg('--baseline-entry');
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
const baselineUrl = arg('--baseline-database') ?? url;
const CONNECTIONS = 50;
const TIMING = quick ? { warmupSeconds: 2, seconds: 5 } : { warmupSeconds: 3, seconds: 8 };
const QUICK_WORKSPACE = 'bench tracing 10000';

/** An OTLP/HTTP receiver that reads each export and answers 200 with an empty protobuf message. */
async function startSink(): Promise<{ url: string; exports(): Promise<number>; stop(): void }> {
  const code = `let n = 0; process.on('message', () => process.send(n));
    require('node:http').createServer((req, res) => { req.resume(); req.on('end', () => { n += 1; res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end(); }); })
      .listen(0, '127.0.0.1', function () { console.log(this.address().port); });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const port = await new Promise<string>((resolve) => child.stdout!.once('data', (chunk) => resolve(String(chunk).trim())));
  return {
    url: `http://127.0.0.1:${port}`,
    exports: () => new Promise((resolve) => {
      child.once('message', (n) => resolve(Number(n)));
      child.send('count');
    }),
    stop: () => child.kill('SIGKILL'),
  };
}

async function main(): Promise<void> {
  const { orgId, key, sample, pgVersion } = await readsWorkspace(url, quick, QUICK_WORKSPACE);
  const benchDb = await openBenchDatabase(url);
  const postmasterPid = postmasterOf(Number((await benchDb.raw('select pg_backend_pid() as pid')).rows[0].pid));
  await benchDb.destroy();
  const [baselineKey] = baselineEntry && baselineUrl !== url ? await baselineKeys(baselineEntry, baselineUrl, [orgId]) : [key];
  const sink = await startSink();
  const ours = buildService();
  const input = encodeURIComponent(JSON.stringify({ json: { id: sample.leadId } }));
  const servers = [
    { name: 'tracing off', args: serviceArgs(ours), env: serviceEnv(url), key },
    // Every span sampled (the SDK's default, said anyway), exported as production would: protobuf, the batch processor's defaults.
    { name: 'tracing on', args: serviceArgs(ours), env: { ...serviceEnv(url), OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_TRACES_SAMPLER: 'always_on' }, key },
    ...(baselineEntry ? [{ name: 'baseline', args: serviceArgs(baselineEntry), env: serviceEnv(baselineUrl), key: baselineKey! }] : []),
  ];
  const results = new Map<string, CannonResult[]>(servers.map((s) => [s.name, []]));
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const s of round % 2 === 0 ? [...servers].reverse() : servers) {
        const server = await startServer(s.name, s.args, s.env);
        const exportsBefore = await sink.exports();
        try {
          const job = { url: `${server.baseUrl}/api/v1/rpc/leads.getById?input=${input}`, headers: { Authorization: `Bearer ${s.key}` } };
          const result = await runCannon({ ...job, connections: CONNECTIONS, ...TIMING }, server.pid, postmasterPid);
          if (result.errors + result.non2xx > 0) throw new Error(`${s.name}: ${result.errors} errors, ${result.non2xx} non-2xx`);
          results.get(s.name)!.push(result);
        } finally {
          await server.stop();
        }
        const exported = (await sink.exports()) - exportsBefore;
        process.stderr.write(`round ${round} ${s.name}: ${Math.round(results.get(s.name)!.at(-1)!.rps)} req/s, ${results.get(s.name)!.at(-1)!.serverCpuUsPerRequest} us/request, ${exported} OTLP exports received\n`);
      }
    }
  } finally {
    sink.stop();
  }
  const rps = (name: string) => median(results.get(name)!.map((r) => r.rps));
  const cpu = (name: string) => median(results.get(name)!.map((r) => r.serverCpuUsPerRequest ?? NaN));
  const paired = (a: string, b: string) => {
    const each = results.get(a)!.map((r, i) => r.rps / results.get(b)![i]!.rps);
    return `${median(each).toFixed(2)}x (rounds ${each.map((e) => e.toFixed(2)).join(', ')})`;
  };
  const lines = [
    `${machineLine(pgVersion)}; ${quick ? QUICK_WORKSPACE : LARGE_WORKSPACE}; leads.getById, ${rounds} rounds taking turns, ${CONNECTIONS} connections, ${TIMING.warmupSeconds} s warm-up and ${TIMING.seconds} s counted each; medians.`,
    '',
    '| server | req/s (each round) | median req/s | median server CPU µs/request |',
    '|---|---|---:|---:|',
    ...servers.map((s) => `| ${s.name} | ${results.get(s.name)!.map((r) => Math.round(r.rps)).join(', ')} | ${Math.round(rps(s.name))} | ${cpu(s.name)} |`),
    '',
    `- tracing on / off: **${(rps('tracing on') / rps('tracing off')).toFixed(2)}x** (target >= 0.85); paired by round ${paired('tracing on', 'tracing off')}; server CPU per request ${(cpu('tracing on') / cpu('tracing off')).toFixed(2)}x`,
    ...(baselineEntry ? [`- tracing off / baseline build: **${(rps('tracing off') / rps('baseline')).toFixed(2)}x** (target >= 0.98); paired by round ${paired('tracing off', 'baseline')}`] : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
