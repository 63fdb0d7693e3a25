import { openLargeWorkspace, DEFAULT_BENCH_URL } from './lib/dataset';
import { startServer, buildService, runCannon, serviceEnv, serviceArgs, BENCH_POOL_MAX } from './lib/processes';
import { machineLine, median } from './lib/report';
import type { CannonJob } from './lib/cannon';

// `npx tsx bench/layers.ts [--rounds 5] [--rate 800] [--only name,name]`: where leads.getById's
// server CPU goes, layer by layer, from the floor (bare node:http and pg, servers/floor.ts) to the
// compiled service. Each server adds one layer of the service to the one before
// (servers/layered.ts); all hold the same fixed rate at 50 connections, taking turns (the order
// reversed every other round), so a layer's cost is the difference between two servers' server
// CPU per request. At a fixed rate every server does the same work per second, so the figure does
// not move with how fast each can go. Every server runs with start:prod's node flags, so the
// last steps are the build and index.ts alone. Other work on the machine only adds to a
// request's CPU: when rounds disagree, the lowest round is the closer estimate.
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const rounds = Number(arg('--rounds') ?? 5);
const rate = Number(arg('--rate') ?? 800);
const only = arg('--only')?.split(',');
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
const TIMING = { connections: 50, rate, warmupSeconds: 3, seconds: 8 };

interface Server { name: string; adds: string; args: string[]; env: Record<string, string>; job(baseUrl: string): Omit<CannonJob, keyof typeof TIMING> }

async function main(): Promise<void> {
  const large = await openLargeWorkspace(url);
  const { key, sample, pgVersion } = large;
  const ours = buildService();
  // start:prod's node flags, for every server.
  const flags = serviceArgs(ours).slice(0, -1);
  const env = { DATABASE_URL: url, DB_POOL_MAX: BENCH_POOL_MAX, ORG_ID: large.orgId };
  const oursEnv = serviceEnv(url);
  const direct = (b: string) => ({ url: `${b}/leads/${large.orgId}/${sample.leadId}` });
  const rpc = (b: string) => ({ url: `${b}/api/v1/rpc/leads.getById?input=${encodeURIComponent(JSON.stringify({ json: { id: sample.leadId } }))}`, headers: { Authorization: `Bearer ${key}` } });
  const layered = (layer: string, adds: string, job: Server['job']): Server => ({
    name: layer, adds, args: [...flags, '--import', 'tsx', 'bench/servers/layered.ts'], env: { ...env, LAYER: layer, NODE_ENV: 'production' }, job,
  });
  const all: Server[] = [
    { name: 'floor', adds: 'node:http, a pg pool, one named prepared statement, JSON.stringify (servers/floor.ts)', args: [...flags, '--import', 'tsx', 'bench/servers/floor.ts'], env, job: direct },
    layered('query', "the service's query: its two knex pools, the compiled statement, the row mapped to a Lead", direct),
    layered('express', "Express 5 on the service's HTTP server (createHttpServer), a route with path parameters, sendJson", direct),
    layered('envelope', 'the RPC path and wire format: input read from the query string, decodeEnvelope, encodeResult', rpc),
    layered('zod', 'the procedure from the registry, its zod input schema (parseWithContext), its handler', rpc),
    layered('auth', 'API key authentication with its cache (LISTEN invalidation live), tier and scope checks', rpc),
    layered('ratelimit', 'rate limits: the address and key budgets counted in this process (a limit never reached)', rpc),
    layered('log', 'the request log line (pino, to /dev/null) and its metrics (prom-client)', rpc),
    layered('edge', 'helmet and CORS headers (edgeHeaders)', rpc),
    layered('app', "createApp as index.ts builds it: the dispatcher's other checks, every router mounted", rpc),
    { name: 'service', adds: 'the compiled service (index.ts), rate limits on (in this process, RATE_LIMIT_PER_MINUTE=1000000)', args: serviceArgs(ours), env: { ...oursEnv, RATE_LIMIT_PER_MINUTE: '1000000' }, job: rpc },
    { name: 'service, limits off', adds: 'the same with rate limits off, as the other benchmarks run it', args: serviceArgs(ours), env: oursEnv, job: rpc },
  ];
  const servers = only ? all.filter((s) => only.includes(s.name)) : all;
  const results = new Map<string, { rps: number; cpu: number }[]>(servers.map((s) => [s.name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const s of round % 2 === 0 ? [...servers].reverse() : servers) {
      const server = await startServer(s.name, s.args, s.env);
      try {
        const r = await runCannon({ ...s.job(server.baseUrl), ...TIMING }, server.pid);
        if (r.errors + r.non2xx > 0) throw new Error(`${s.name}: ${r.errors} errors, ${r.non2xx} non-2xx`);
        results.get(s.name)!.push({ rps: r.rps, cpu: r.serverCpuUsPerRequest ?? NaN });
        process.stderr.write(`round ${round} ${s.name}: ${r.rps} req/s, ${r.serverCpuUsPerRequest} us/request\n`);
      } finally {
        await server.stop();
      }
    }
  }
  const cpuOf = (name: string) => median(results.get(name)!.map((x) => x.cpu));
  const lowestOf = (name: string) => Math.min(...results.get(name)!.map((x) => x.cpu));
  const missed = [...results].flatMap(([name, r]) => r.filter((x) => x.rps < rate * 0.97).map((x) => `${name} ${x.rps}`));
  const lines = [
    `${machineLine(pgVersion)}; leads.getById at ${rate} req/s over 50 connections; ${rounds} rounds taking turns, ${TIMING.warmupSeconds} s warm-up and ${TIMING.seconds} s counted each; node flags ${flags.join(' ') || 'none'}.`,
    '',
    '| server | adds | server CPU µs/request (each round) | median | lowest | the layer (difference of the lowest) |',
    '|---|---|---|---:|---:|---:|',
    ...servers.map((s, i) => {
      const previous = servers[i - 1]?.name;
      return `| ${s.name} | ${s.adds} | ${results.get(s.name)!.map((x) => x.cpu).join(', ')} | ${cpuOf(s.name)} | ${lowestOf(s.name)} | ${previous === undefined ? '' : lowestOf(s.name) - lowestOf(previous)} |`;
    }),
    '',
    `Rounds that did not hold ${rate} req/s (the machine was busier than the server): ${missed.join(', ') || 'none'}.`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
