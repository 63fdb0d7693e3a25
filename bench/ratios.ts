import { openLargeWorkspace, DEFAULT_BENCH_URL } from './lib/dataset';
import { startServer, buildService, runCannon, serviceEnv, serviceArgs, BENCH_POOL_MAX } from './lib/processes';
import { machineLine, median } from './lib/report';
import type { CannonJob, CannonResult } from './lib/cannon';

// `npx tsx bench/ratios.ts [--rounds 3] [--baseline-entry DIR/src/index.js]`: the ratio
// cases of `npm run bench` (getById: ceiling, tRPC peer, ours; create: insert ceiling, ours),
// taking turns for several rounds, with the median of each. One run of `npm run bench` moves by
// about ±0.05 in these ratios on this shared machine. With --baseline-entry, an older build takes
// its turn beside ours on the same database (its migrations must be the same). Make one with
//   git worktree add /tmp/old <commit> && ln -s $PWD/node_modules /tmp/old/ &&
//   (cd /tmp/old && node_modules/.bin/tsc -p tsconfig.build.json --outDir /tmp/old/dist)
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const rounds = Number(arg('--rounds') ?? 3);
const baselineEntry = arg('--baseline-entry');
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
const CONNECTIONS = 50;
const TIMING = { warmupSeconds: 3, seconds: 8 };

type Job = Omit<CannonJob, 'connections' | 'warmupSeconds' | 'seconds'>;
interface Server { name: string; args: string[]; env: Record<string, string>; job(baseUrl: string): Job }

async function main(): Promise<void> {
  const large = await openLargeWorkspace(url, { writes: true });
  const { key, sample, pgVersion } = large;
  const { orgId: writes, key: writeKey } = large.writes!;

  const env = { DATABASE_URL: url, DB_POOL_MAX: BENCH_POOL_MAX };
  const oursEnv = serviceEnv(url);
  let sent = 0;
  const creates = (wrap: boolean) => Array.from({ length: 5000 }, () => {
    sent += 1;
    const input = { name: `Ratios ${process.pid} ${sent}`, phone: `+4475${String(process.pid % 100).padStart(2, '0')}${String(sent).padStart(6, '0')}` };
    return JSON.stringify(wrap ? { json: input } : input);
  });
  const auth = { Authorization: `Bearer ${key}` };
  const getById = (base: string) => ({ url: `${base}/api/v1/rpc/leads.getById?input=${encodeURIComponent(JSON.stringify({ json: { id: sample.leadId } }))}`, headers: auth });
  const create = (base: string): Job => ({
    url: `${base}/api/v1/rpc/leads.create`, method: 'POST', bodies: creates(true),
    headers: { Authorization: `Bearer ${writeKey}`, 'content-type': 'application/json' },
  });
  const tsx = (file: string) => ['--import', 'tsx', file];
  const ours = buildService();
  const servers: Server[] = [
    { name: 'getById ceiling', args: tsx('bench/servers/ceiling.ts'), env, job: (b) => ({ url: `${b}/leads/${large.orgId}/${sample.leadId}` }) },
    { name: 'getById peer', args: tsx('bench/servers/trpc-peer.ts'), env, job: (b) => ({ url: `${b}/trpc/leads.getById?input=${encodeURIComponent(JSON.stringify({ json: { orgId: large.orgId, id: sample.leadId } }))}` }) },
    { name: 'getById ours', args: serviceArgs(ours), env: oursEnv, job: getById },
    ...(baselineEntry ? [{ name: 'getById baseline', args: serviceArgs(baselineEntry), env: oursEnv, job: getById }] : []),
    ...[['create insert ceiling', '1'], ['create insert ceiling without events', '0']].map(([name, withEvents]) => ({
      name: name!, args: tsx('bench/servers/insert-ceiling.ts'), env: { ...env, WITH_EVENTS: withEvents! },
      job: (b: string): Job => ({ url: `${b}/leads/${writes}`, method: 'POST', bodies: creates(false), headers: { 'content-type': 'application/json' } }),
    })),
    { name: 'create ours', args: serviceArgs(ours), env: oursEnv, job: create },
    ...(baselineEntry ? [{ name: 'create baseline', args: serviceArgs(baselineEntry), env: oursEnv, job: create }] : []),
  ];

  const results = new Map<string, CannonResult[]>(servers.map((s) => [s.name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const s of servers) {
      const server = await startServer(s.name, s.args, s.env);
      try {
        const result = await runCannon({ ...s.job(server.baseUrl), connections: CONNECTIONS, ...TIMING }, server.pid);
        if (result.errors + result.non2xx > 0) throw new Error(`${s.name}: ${result.errors} errors, ${result.non2xx} non-2xx`);
        results.get(s.name)!.push(result);
        process.stderr.write(`round ${round} ${s.name}: ${Math.round(result.rps)} req/s, ${result.serverCpuUsPerRequest} us/request\n`);
      } finally {
        await server.stop();
      }
    }
  }

  const rps = (name: string) => median(results.get(name)!.map((r) => r.rps));
  const cpu = (name: string) => median(results.get(name)!.map((r) => r.serverCpuUsPerRequest ?? NaN));
  const lines = [
    `${machineLine(pgVersion)}; ${rounds} rounds taking turns, ${CONNECTIONS} connections, ${TIMING.warmupSeconds} s warm-up and ${TIMING.seconds} s counted each; medians.`,
    '',
    '| server | req/s (each round) | median req/s | median server CPU µs/request |',
    '|---|---|---:|---:|',
    ...servers.map((s) => `| ${s.name} | ${results.get(s.name)!.map((r) => Math.round(r.rps)).join(', ')} | ${Math.round(rps(s.name))} | ${cpu(s.name)} |`),
    '',
    `- getById ours / ceiling: **${(rps('getById ours') / rps('getById ceiling')).toFixed(2)}x** (target >= 0.9); CPU per request ${(cpu('getById ours') / cpu('getById ceiling')).toFixed(2)}x the ceiling's`,
    `- getById ours / tRPC peer: **${(rps('getById ours') / rps('getById peer')).toFixed(2)}x** (target >= 1.6)`,
    `- create ours / insert ceiling (the same inserts: contact, lead and its two events): **${(rps('create ours') / rps('create insert ceiling')).toFixed(2)}x** (target >= 0.8); CPU per request ${(cpu('create ours') / cpu('create insert ceiling')).toFixed(2)}x`,
    `- create ours / insert ceiling without events (contact and lead only, as before events existed): ${(rps('create ours') / rps('create insert ceiling without events')).toFixed(2)}x`,
    ...(baselineEntry
      ? [`- against the baseline build: getById ${(rps('getById ours') / rps('getById baseline')).toFixed(2)}x its req/s (CPU ${(cpu('getById ours') / cpu('getById baseline')).toFixed(2)}x), create ${(rps('create ours') / rps('create baseline')).toFixed(2)}x (CPU ${(cpu('create ours') / cpu('create baseline')).toFixed(2)}x)`]
      : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
