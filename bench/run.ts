import { resolve } from 'node:path';
import { openBenchDatabase, ensureWorkspace, createBenchKey, sampleOf, DEFAULT_BENCH_URL, type BenchWorkspace, writesWorkspaceId, postgresVersion } from './lib/dataset';
import { withServer, buildService, runCannon, sampleRss, serviceEnv, serviceArgs, BENCH_POOL_MAX } from './lib/processes';
import { walk, supportsCursor, type WalkResult } from './lib/walk';
import { table, walkLine, machineLine, type Row } from './lib/report';
import type { CannonJob } from './lib/cannon';

// `npm run bench [-- --quick]`: every server runs alone, as its own process, against one database.
// Prints a Markdown report; docs/performance.md keeps today's figures (runs are not committed).
const quick = process.argv.includes('--quick');
const PLAN = quick
  ? { large: 100_000, others: [10_000, 10_000, 10_000], warmup: 1, seconds: 3 }
  : { large: 1_000_000, others: [100_000, 100_000, 100_000], warmup: 3, seconds: 10 };
/** Below what the ceiling and ours both answer at 50 connections here. */
const FIXED_RATE = 800;
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
/** The checkout whose service is measured as ours (default: this one), as in bench:writes. */
const serviceDir = resolve(process.env.BENCH_SERVICE_DIR ?? resolve(__dirname, '..'));
const rows: Row[] = [];

async function measure(name: string, job: Omit<CannonJob, 'warmupSeconds' | 'seconds'>, tail: Row['tail'] = 'p99', serverPid?: number) {
  process.stderr.write(`  ${name} at ${job.connections} connections\n`);
  const result = await runCannon({ ...job, warmupSeconds: PLAN.warmup, seconds: PLAN.seconds }, serverPid);
  rows.push({ name, connections: job.connections, result, tail });
  return result;
}

const rpcGet = (base: string, name: string, input: unknown) => `${base}/api/v1/rpc/${name}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;
const phoneOf = (i: number) => `+447400${String(i).padStart(6, '0')}`;

async function main(): Promise<void> {
  const started = performance.now();
  const db = await openBenchDatabase(url);
  const large = await ensureWorkspace(db, `bench large ${PLAN.large}`, PLAN.large, { rebuildIndexes: true });
  const others: BenchWorkspace[] = [];
  for (const [i, n] of PLAN.others.entries()) others.push(await ensureWorkspace(db, `bench other ${i + 1} ${n}`, n));
  const writes = await writesWorkspaceId(db);
  const key = await createBenchKey(db, large.orgId);
  const walkKey = await createBenchKey(db, others[0]!.orgId);
  const writeKey = await createBenchKey(db, writes);
  const sample = await sampleOf(db, large.orgId);
  const pgVersion = await postgresVersion(db);
  await db.destroy();

  const env = { DATABASE_URL: url, DB_POOL_MAX: BENCH_POOL_MAX };
  const oursEnv = serviceEnv(url);
  const c = 50;
  const bodies = (make: (i: number) => unknown) => Array.from({ length: 5000 }, (_, i) => JSON.stringify(make(i)));
  const runTag = Date.now() % 1_000_000;
  const json = { 'content-type': 'application/json' };

  process.stderr.write('measuring\n');
  // CPU per request at one fixed rate both sustain: at full speed a slower server batches less per
  // event-loop turn on these shared cores, which inflates its CPU per request.
  let floorAtRate = undefined as Awaited<ReturnType<typeof measure>> | undefined;
  let ceilingAtRate = undefined as Awaited<ReturnType<typeof measure>> | undefined;
  // The floor: the same lookup on bare node:http and pg, nothing else (servers/floor.ts).
  const floor = await withServer('floor', ['--import', 'tsx', 'bench/servers/floor.ts'], env, async (s) => {
    const url = `${s.baseUrl}/leads/${large.orgId}/${sample.leadId}`;
    const fullSpeed = await measure('floor: node:http and pg getById', { url, connections: c }, 'p99', s.pid);
    floorAtRate = await measure(`floor: node:http and pg getById at ${FIXED_RATE} req/s`, { url, connections: c, rate: FIXED_RATE }, 'p99', s.pid);
    return fullSpeed;
  });
  const ceiling = await withServer('ceiling', ['--import', 'tsx', 'bench/servers/ceiling.ts'], env, async (s) => {
    const url = `${s.baseUrl}/leads/${large.orgId}/${sample.leadId}`;
    const fullSpeed = await measure('ceiling: bare Express getById', { url, connections: c }, 'p99', s.pid);
    // After the full-speed case, so both servers are measured warm.
    ceilingAtRate = await measure(`ceiling: bare Express getById at ${FIXED_RATE} req/s`, { url, connections: c, rate: FIXED_RATE }, 'p99', s.pid);
    return fullSpeed;
  });
  // The same route on the HTTP server ours listens with (requests born on Express's prototypes):
  // ours against this one is the like-for-like ratio, since the ceiling above keeps app.listen.
  const ceilingOnServiceServer = await withServer('ceiling on the service server', ['--import', 'tsx', 'bench/servers/ceiling.ts'], { ...env, HTTP_SERVER: 'service' }, (s) =>
    measure("ceiling: bare Express getById on the service's HTTP server", { url: `${s.baseUrl}/leads/${large.orgId}/${sample.leadId}`, connections: c }, 'p99', s.pid));
  const peer = await withServer('peer', ['--import', 'tsx', 'bench/servers/trpc-peer.ts'], env, (s) =>
    measure('peer: tRPC v11 express adapter getById', { url: rpcGet(s.baseUrl, 'leads.getById', { orgId: large.orgId, id: sample.leadId }).replace('/api/v1/rpc/', '/trpc/'), connections: c }, 'p99', s.pid));
  const insertCeilingOf = (label: string, withEvents: '0' | '1') =>
    withServer('insert ceiling', ['--import', 'tsx', 'bench/servers/insert-ceiling.ts'], { ...env, WITH_EVENTS: withEvents }, (s) =>
      measure(label, { url: `${s.baseUrl}/leads/${writes}`, method: 'POST', headers: json, bodies: bodies((i) => ({ name: `Bench ${withEvents}-${i}`, phone: phoneOf(i) })), connections: c }, 'p99', s.pid));
  const insertCeiling = await insertCeilingOf('insert ceiling: bare Express contact+lead+events', '1');
  const insertCeilingWithoutEvents = await insertCeilingOf('insert ceiling: bare Express contact+lead, no events', '0');

  const auth = { Authorization: `Bearer ${key}` };
  const walks: WalkResult[] = [];
  let rssMb = 0;
  let ours = { getById: ceiling, create: insertCeiling };
  let oursAtRate = undefined as Awaited<ReturnType<typeof measure>> | undefined;
  await withServer('ours', serviceArgs(buildService(serviceDir)), oursEnv, async (s) => {
    const rss = sampleRss(s.pid);
    const getByIdUrl = rpcGet(s.baseUrl, 'leads.getById', { id: sample.leadId });
    const getById = await measure('ours: GET rpc leads.getById', { url: getByIdUrl, headers: auth, connections: c }, 'p99', s.pid);
    oursAtRate = await measure(`ours: GET rpc leads.getById at ${FIXED_RATE} req/s`, { url: getByIdUrl, headers: auth, connections: c, rate: FIXED_RATE }, 'p99', s.pid);
    const create = await measure('ours: POST rpc leads.create', {
      url: `${s.baseUrl}/api/v1/rpc/leads.create`, method: 'POST', headers: { ...json, Authorization: `Bearer ${writeKey}` },
      bodies: bodies((i) => ({ json: { name: `Bench ${runTag}-${i}`, phone: phoneOf(i) } })), connections: c,
    }, 'p99', s.pid);
    ours = { getById, create };
    const list = (query: Record<string, string | number>) => `${s.baseUrl}/api/v1/leads?${new URLSearchParams({ pageSize: '100', ...query } as Record<string, string>)}`;
    const filters: [string, Record<string, string | number>][] = [
      ['none', {}], ['status=QUALIFIED', { status: 'QUALIFIED' }], ['assignedToId=top member', { assignedToId: sample.assigneeId }], ['unassigned', { assignedToId: 'unassigned' }],
    ];
    const searches: [string, Record<string, string>][] = [
      ['search "Patel" (~2.5%)', { search: 'Patel' }], [`search rare "${sample.rareTerm}"`, { search: sample.rareTerm }], [`search phone "${sample.phoneFragment}"`, { search: sample.phoneFragment }],
    ];
    for (const [label, q] of [...filters, ...searches]) await measure(`ours: list ${PLAN.large} first page, ${label}`, { url: list(q), headers: auth, connections: c });
    rssMb = rss.stop();
    for (const [label, q] of filters) await measure(`ours: list first page, ${label}`, { url: list(q), headers: auth, connections: 10 }, 'p95');
    for (const [label, q] of searches) await measure(`ours: list first page, ${label}`, { url: list(q), headers: auth, connections: 1 }, 'p95');
    await measure('ours: list deep page 1000', { url: list({ page: 1000 }), headers: auth, connections: 1 }, 'p95');
    process.stderr.write(`  walking ${others[0]!.leads} leads\n`);
    walks.push(await walk(s.baseUrl, walkKey, others[0]!.leads, 'page', 900));
    if (await supportsCursor(s.baseUrl, walkKey)) walks.push(await walk(s.baseUrl, walkKey, others[0]!.leads, 'cursor', 900));
  });

  const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : '-');
  const body = [
    `${quick ? 'Quick run' : 'Full run'}: ${machineLine(pgVersion)}; workspaces of ${PLAN.large} and ${PLAN.others.join(', ')} leads; ${PLAN.warmup} s warm-up, ${PLAN.seconds} s counted per case; DB_POOL_MAX=${BENCH_POOL_MAX} for every server (ours: for each of its two pools, the second for its prepared hot reads); ours compiled (as npm run build does) and started with start:prod's node flags (${serviceArgs('').slice(0, -1).join(' ') || 'none'}), with NODE_ENV=production and its request log on at info (to /dev/null); the other servers under tsx.`,
    '', table(rows), '',
    `- ours getById / ceiling: **${ratio(ours.getById.rps, ceiling.rps)}x** (target >= 0.9); server CPU per request: ours ${ours.getById.serverCpuUsPerRequest} us, ceiling ${ceiling.serverCpuUsPerRequest} us, peer ${peer.serverCpuUsPerRequest} us (**${ratio(ours.getById.serverCpuUsPerRequest ?? 0, ceiling.serverCpuUsPerRequest ?? 0)}x** the ceiling's; target <= 1.1)`,
    `- ours getById / the ceiling on the service's HTTP server (like for like): ${ratio(ours.getById.rps, ceilingOnServiceServer.rps)}x; its server CPU per request ${ceilingOnServiceServer.serverCpuUsPerRequest} us (ours ${ratio(ours.getById.serverCpuUsPerRequest ?? 0, ceilingOnServiceServer.serverCpuUsPerRequest ?? 0)}x)`,
    `- ours getById / tRPC peer: **${ratio(ours.getById.rps, peer.rps)}x** (target >= 1.6)`,
    `- ours getById / the floor (node:http and pg): ${ratio(ours.getById.rps, floor.rps)}x; server CPU per request: floor ${floor.serverCpuUsPerRequest} us (ours ${ratio(ours.getById.serverCpuUsPerRequest ?? 0, floor.serverCpuUsPerRequest ?? 0)}x)`,
    `- getById server CPU per request at a fixed ${FIXED_RATE} req/s: ours ${oursAtRate?.serverCpuUsPerRequest} us, ceiling ${ceilingAtRate?.serverCpuUsPerRequest} us (**${ratio(oursAtRate?.serverCpuUsPerRequest ?? 0, ceilingAtRate?.serverCpuUsPerRequest ?? 0)}x**; target <= 1.1), floor ${floorAtRate?.serverCpuUsPerRequest} us`,
    `- ours create / insert ceiling (the same inserts: contact, lead and its two events): **${ratio(ours.create.rps, insertCeiling.rps)}x** (target >= 0.8); server CPU per request: ours ${ours.create.serverCpuUsPerRequest} us, insert ceiling ${insertCeiling.serverCpuUsPerRequest} us`,
    `- ours create / insert ceiling without events (contact and lead only): ${ratio(ours.create.rps, insertCeilingWithoutEvents.rps)}x`,
    `- our server's peak RSS under the 50-connection cases: **${rssMb} MB** (target < 150)`,
    ...walks.map(walkLine),
    ...(large.loaded ? [`- this run loaded the ${PLAN.large}-lead workspace (\`seed bulk\`): ${large.loaded.loadSeconds} s to its last batch, ${large.loaded.seconds} s in all, with its indexes built again (\`--rebuild-indexes\`, ${large.loaded.indexesSeconds} s), the counters folded and the tables vacuumed (${large.loaded.vacuumSeconds} s) (target: about a minute)`] : []),
    ...(walks.some((w) => w.mode === 'cursor') ? [] : ['- cursor walk: the list does not answer `pagination.nextCursor` yet']),
  ].join('\n');
  process.stdout.write(`${body}\n`);
  process.stderr.write(`done in ${Math.round((performance.now() - started) / 1000)} s\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
