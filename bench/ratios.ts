import { openLargeWorkspace, openBenchDatabase, baselineKeys, DEFAULT_BENCH_URL, LARGE_WORKSPACE } from './lib/dataset';
import { startServer, buildService, runCannon, serviceEnv, serviceArgs, postmasterOf, BENCH_POOL_MAX } from './lib/processes';
import { machineLine, median } from './lib/report';
import type { CannonJob, CannonResult } from './lib/cannon';

// `npx tsx bench/ratios.ts [--rounds 3] [--cases getById,list,create,update] [--skip-ceilings] [--baseline-entry DIR/src/index.js [--baseline-database URL]]`:
// the performance targets' cases, taking turns for several rounds (the order reversed every
// other round), with the median of each: getById from the floor (servers/floor.ts), the bare
// Express ceiling, the tRPC peer and ours; the REST list's first page on the million-lead
// workspace; create against the insert ceilings; leads.update of the million-lead workspace's
// leads (ours, and the baseline's). `--cases` runs only the named ones. One run moves by about ±0.05 in these ratios on
// this shared machine. With --baseline-entry, an older build takes its turn beside ours, on the
// same database, or on --baseline-database when the schema has changed since (a copy made before
// the change: `create database wsapi_bench_before template wsapi_bench`; the older build issues
// its own key there). Make the build with
//   git worktree add /tmp/old <commit> && ln -s $PWD/node_modules /tmp/old/ &&
//   (cd /tmp/old && node_modules/.bin/tsc -p tsconfig.build.json --outDir /tmp/old/dist)
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const rounds = Number(arg('--rounds') ?? 3);
const baselineEntry = arg('--baseline-entry');
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
const baselineUrl = arg('--baseline-database') ?? url;
const cases = new Set((arg('--cases') ?? 'getById,list,create,update').split(','));
const CONNECTIONS = 50;
const TIMING = { warmupSeconds: 3, seconds: 8 };

type Job = Omit<CannonJob, 'connections' | 'warmupSeconds' | 'seconds'>;
interface Server { name: string; args: string[]; env: Record<string, string>; job(baseUrl: string): Job }

async function main(): Promise<void> {
  const large = await openLargeWorkspace(url, { writes: true });
  const { key, sample, pgVersion } = large;
  // PostgreSQL's CPU per request beside the server's: a write's cost is in both.
  const benchDb = await openBenchDatabase(url);
  const postmasterPid = postmasterOf(Number((await benchDb.raw('select pg_backend_pid() as pid')).rows[0].pid));
  await benchDb.destroy();
  const { orgId: writes, key: writeKey } = large.writes!;
  const [baselineKey, baselineWriteKey] = baselineEntry && baselineUrl !== url
    ? await baselineKeys(baselineEntry, baselineUrl, [large.orgId, writes])
    : [key, writeKey];

  const env = { DATABASE_URL: url, DB_POOL_MAX: BENCH_POOL_MAX };
  const oursEnv = serviceEnv(url);
  const baselineEnv = serviceEnv(baselineUrl);
  let sent = 0;
  const creates = (wrap: boolean) => Array.from({ length: 5000 }, () => {
    sent += 1;
    const input = { name: `Ratios ${process.pid} ${sent}`, phone: `+4475${String(process.pid % 100).padStart(2, '0')}${String(sent).padStart(6, '0')}` };
    return JSON.stringify(wrap ? { json: input } : input);
  });
  const getById = (k: string) => (base: string) => ({ url: `${base}/api/v1/rpc/leads.getById?input=${encodeURIComponent(JSON.stringify({ json: { id: sample.leadId } }))}`, headers: { Authorization: `Bearer ${k}` } });
  const list = (k: string) => (base: string) => ({ url: `${base}/api/v1/leads?pageSize=100`, headers: { Authorization: `Bearer ${k}` } });
  const create = (k: string) => (base: string): Job => ({
    url: `${base}/api/v1/rpc/leads.create`, method: 'POST', bodies: creates(true),
    headers: { Authorization: `Bearer ${k}`, 'content-type': 'application/json' },
  });
  // Notes changed on leads spread over the workspace, every body a different lead, so no two
  // connections wait on one row's lock.
  const updates = Array.from({ length: 5000 }, (_, i) => JSON.stringify({ json: { id: large.updateIds[i % large.updateIds.length], notes: `Ratios ${process.pid} ${i}` } }));
  const update = (k: string) => (base: string): Job => ({
    url: `${base}/api/v1/rpc/leads.update`, method: 'POST', bodies: updates,
    headers: { Authorization: `Bearer ${k}`, 'content-type': 'application/json' },
  });
  const tsx = (file: string) => ['--import', 'tsx', file];
  const ours = buildService();
  const direct = (b: string) => ({ url: `${b}/leads/${large.orgId}/${sample.leadId}` });
  const baseline = (name: string, job: (k: string) => Server['job'], k: string): Server[] =>
    (baselineEntry ? [{ name: `${name} baseline`, args: serviceArgs(baselineEntry), env: baselineEnv, job: job(k) }] : []);
  const allServers: Server[] = [
    { name: 'getById floor', args: tsx('bench/servers/floor.ts'), env, job: direct },
    { name: 'getById ceiling', args: tsx('bench/servers/ceiling.ts'), env, job: direct },
    { name: 'getById peer', args: tsx('bench/servers/trpc-peer.ts'), env, job: (b) => ({ url: `${b}/trpc/leads.getById?input=${encodeURIComponent(JSON.stringify({ json: { orgId: large.orgId, id: sample.leadId } }))}` }) },
    { name: 'getById ours', args: serviceArgs(ours), env: oursEnv, job: getById(key) },
    ...baseline('getById', getById, baselineKey!),
    { name: 'list ours', args: serviceArgs(ours), env: oursEnv, job: list(key) },
    ...baseline('list', list, baselineKey!),
    ...[['create insert ceiling', '1'], ['create insert ceiling without events', '0']].map(([name, withEvents]) => ({
      name: name!, args: tsx('bench/servers/insert-ceiling.ts'), env: { ...env, WITH_EVENTS: withEvents! },
      job: (b: string): Job => ({ url: `${b}/leads/${writes}`, method: 'POST', bodies: creates(false), headers: { 'content-type': 'application/json' } }),
    })),
    { name: 'create ours', args: serviceArgs(ours), env: oursEnv, job: create(writeKey) },
    ...baseline('create', create, baselineWriteKey!),
    { name: 'update ours', args: serviceArgs(ours), env: oursEnv, job: update(key) },
    ...baseline('update', update, baselineKey!),
  ];
  // --skip-ceilings: ours and the baseline alone, more rounds in the same time (a before/after question).
  const skipCeilings = process.argv.includes('--skip-ceilings');
  const servers = allServers.filter((s) => cases.has(s.name.split(' ')[0]!) && !(skipCeilings && !/ (ours|baseline)$/.test(s.name)));

  const results = new Map<string, CannonResult[]>(servers.map((s) => [s.name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const s of round % 2 === 0 ? [...servers].reverse() : servers) {
      const server = await startServer(s.name, s.args, s.env);
      try {
        const result = await runCannon({ ...s.job(server.baseUrl), connections: CONNECTIONS, ...TIMING }, server.pid, postmasterPid);
        if (result.errors + result.non2xx > 0) throw new Error(`${s.name}: ${result.errors} errors, ${result.non2xx} non-2xx`);
        results.get(s.name)!.push(result);
        process.stderr.write(`round ${round} ${s.name}: ${Math.round(result.rps)} req/s, ${result.serverCpuUsPerRequest} us/request, database ${result.databaseCpuUsPerRequest} us/request\n`);
      } finally {
        await server.stop();
      }
    }
  }

  const rps = (name: string) => median(results.get(name)!.map((r) => r.rps));
  const cpu = (name: string) => median(results.get(name)!.map((r) => r.serverCpuUsPerRequest ?? NaN));
  const dbCpu = (name: string) => median(results.get(name)!.map((r) => r.databaseCpuUsPerRequest ?? NaN));
  const x = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
  // Each round's two turns of a case run one after the other, so their ratio cancels the machine's
  // drift between rounds (on a shared machine rounds spread by ±30%), which the medians' ratio does not.
  const paired = (name: string) => {
    const [ours, base] = [results.get(`${name} ours`)!, results.get(`${name} baseline`)!];
    const each = ours.map((r, i) => r.rps / base[i]!.rps);
    return `paired by round ${median(each).toFixed(2)}x (${Math.min(...each).toFixed(2)}-${Math.max(...each).toFixed(2)})`;
  };
  const against = (name: string) =>
    `${name} ${x(rps(`${name} ours`), rps(`${name} baseline`))} its req/s, ${paired(name)} (server CPU ${x(cpu(`${name} ours`), cpu(`${name} baseline`))}, PostgreSQL CPU ${x(dbCpu(`${name} ours`), dbCpu(`${name} baseline`))})`;
  const has = (name: string) => results.has(name);
  const lines = [
    `${machineLine(pgVersion)}; ${LARGE_WORKSPACE}; ${rounds} rounds taking turns, ${CONNECTIONS} connections, ${TIMING.warmupSeconds} s warm-up and ${TIMING.seconds} s counted each; medians.`,
    '',
    '| server | req/s (each round) | median req/s | median server CPU µs/request | median PostgreSQL CPU µs/request |',
    '|---|---|---:|---:|---:|',
    ...servers.map((s) => `| ${s.name} | ${results.get(s.name)!.map((r) => Math.round(r.rps)).join(', ')} | ${Math.round(rps(s.name))} | ${cpu(s.name)} | ${dbCpu(s.name)} |`),
    '',
    ...(has('getById ceiling') ? [
      `- getById ours / ceiling: **${x(rps('getById ours'), rps('getById ceiling'))}** (target >= 0.9); server CPU per request ${x(cpu('getById ours'), cpu('getById ceiling'))} the ceiling's`,
      `- getById ours / tRPC peer: **${x(rps('getById ours'), rps('getById peer'))}** (target >= 1.6)`,
      `- getById ours / floor: ${x(rps('getById ours'), rps('getById floor'))}; server CPU per request ${x(cpu('getById ours'), cpu('getById floor'))} the floor's`,
    ] : []),
    ...(has('create insert ceiling') ? [
      `- create ours / insert ceiling (the same inserts: contact, lead and its two events): **${x(rps('create ours'), rps('create insert ceiling'))}** (target >= 0.8); server CPU per request ${x(cpu('create ours'), cpu('create insert ceiling'))}`,
      `- create ours / insert ceiling without events (contact and lead only, as before events existed): ${x(rps('create ours'), rps('create insert ceiling without events'))}`,
    ] : []),
    ...(baselineEntry
      ? [`- against the baseline build${baselineUrl === url ? '' : ' (on its own database)'}: ${['getById', 'list', 'create', 'update'].filter((c) => has(`${c} baseline`)).map(against).join('; ')}`]
      : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
