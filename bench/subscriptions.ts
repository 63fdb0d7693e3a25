import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { loadavg, cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { openBenchDatabase, ensureWorkspace, createBenchKey, writesWorkspaceId, DEFAULT_BENCH_URL, postgresVersion } from './lib/dataset';
import { startServer, buildService, runCannon, serviceEnv, serviceArgs, cpuTimeUs, BENCH_POOL_MAX, type RunningServer } from './lib/processes';
import { SseClients, histogramPercentile, type SubscriberSpec } from './lib/sse-clients';
import { rpcWriter, pacedWrites, type PacedResult } from './lib/paced-writes';
import { steadyRssKb, watchConditions, type Conditions } from './lib/run-conditions';
import { report, type IdleResult, type FanoutResult, type SustainedResult, type SideResult } from './lib/subscriptions-report';
import { median } from './lib/report';
import type { CannonResult } from './lib/cannon';
import type { Db } from '../src/db/knex';

const HELP = `npm run bench:subscriptions [-- options]

Live updates (events.onEvent over Server-Sent Events), ours against tRPC v11's own SSE
(bench/servers/trpc-sse-peer.ts), side by side in one run, each subscription server alone
while a second instance of ours takes the writes (both woken by its NOTIFY):
  a. idle subscribers spread over workspaces: resident memory per subscriber, and getById
     req/s with them open against without;
  b. one event reaching the fan-out subscribers of its workspace, one at a time: latency
     from the event's createdAt to receipt, p50 and p99;
  c. a fixed rate of events to the fan-out subscribers for a while: every event to every
     subscriber exactly once, events delivered per second, latency p50 and p99.
The events of b and c are lead.created, one per leads.create (a single statement, so the
event's createdAt is within that statement of its commit); the fan-out subscribers ask for
that type alone (each create also records a contact.created, read and left out).

  --subscribers N       idle subscribers (default 10000)
  --workspaces N        workspaces the idle subscribers spread over (default 10)
  --fanout N            subscribers of the written workspace in b and c (default 1000)
  --single-events N     events in b, one a second (default 20)
  --rate N              events a second in c (default 100)
  --duration S          seconds of c (default 60)
  --seconds S           counted seconds of each getById run, after 2 s of warm-up (default 10)
  --rounds N            rounds of getById with the idle subscribers open and without (default 3)
  --client-processes N  processes holding the subscribers (default 2)
  --only ours|peer      measure one side
  --cases abc           which of a, b and c to run (default all)
  --cpu-prof DIR        write each subscription server's CPU profile into DIR
  --quick               1000 idle, 100 fan-out, 5 single events, 10 s of c, 1 round of 5 s per getById
  --help

BENCH_DATABASE_URL names the database (default ${DEFAULT_BENCH_URL}); other work on its
PostgreSQL server delays both sides' events (see "samples with another database's write
transaction open"): a server of its own keeps the figures to the two servers. BENCH_SERVICE_DIR
names another checkout whose service is built and measured as ours (a git worktree, for before
and after figures), as in bench/writes.ts.`;

const { values: opts } = parseArgs({
  options: {
    subscribers: { type: 'string' }, workspaces: { type: 'string', default: '10' }, fanout: { type: 'string' },
    'single-events': { type: 'string' }, rate: { type: 'string', default: '100' }, duration: { type: 'string' },
    seconds: { type: 'string' }, rounds: { type: 'string' }, 'client-processes': { type: 'string', default: '2' }, only: { type: 'string' }, cases: { type: 'string', default: 'abc' },
    'cpu-prof': { type: 'string' },
    quick: { type: 'boolean', default: false }, help: { type: 'boolean', default: false },
  },
});
if (opts.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}
const num = (value: string | undefined, quick: number, full: number) => Number(value ?? (opts.quick ? quick : full));
const PLAN = {
  idle: num(opts.subscribers, 1000, 10_000),
  workspaces: Number(opts.workspaces),
  fanout: num(opts.fanout, 100, 1000),
  singleEvents: num(opts['single-events'], 5, 20),
  rate: Number(opts.rate),
  duration: num(opts.duration, 10, 60),
  seconds: num(opts.seconds, 5, 10),
  warmup: 2,
  clientProcesses: Number(opts['client-processes']),
  rounds: num(opts.rounds, 1, 3),
};
if (opts.only !== undefined && opts.only !== 'ours' && opts.only !== 'peer') throw new Error('--only: ours or peer');
const SIDES = (opts.only ? [opts.only] : ['ours', 'peer']) as ('ours' | 'peer')[];
const CASES = opts.cases;
const PROFILE_ARGS = opts['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${opts['cpu-prof']}`] : [];
const LEADS_PER_WORKSPACE = 200;
/** How long c waits after its writes for every event to arrive; what is still on its way then counts as missing. */
const DRAIN_MS = 60_000;
/** Subscribers waiting for their `connected` at once, per client process. */
const OPEN_CONCURRENCY = 64;
/** The same quiet interval on both sides: the service's default SSE_PING_MS. */
const PING_MS = 10_000;
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
const serviceDir = resolve(process.env.BENCH_SERVICE_DIR ?? resolve(__dirname, '..'));
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const log = (line: string) => process.stderr.write(`${line}\n`);

/**
 * Every subscriber is a socket in its server and in a client process: raise the soft limit on open
 * files to the hard one by running this script again under `ulimit -n` when it is too low.
 */
function ensureOpenFileLimit(needed: number): void {
  const [soft, hard] = spawnSync('sh', ['-c', 'ulimit -n; ulimit -Hn'], { encoding: 'utf8' }).stdout.trim().split('\n').map((v) => (v === 'unlimited' ? Infinity : Number(v)));
  if (soft! >= needed) return;
  if (hard! < needed || process.env.BENCH_ULIMIT_RAISED) throw new Error(`open files: ${needed} needed, soft limit ${soft}, hard ${hard}: raise them (ulimit -n) or lower --subscribers`);
  log(`raising the open-file limit from ${soft} to ${hard}`);
  const again = spawnSync('sh', ['-c', `ulimit -n ${hard} && exec "$0" "$@"`, process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit', env: { ...process.env, BENCH_ULIMIT_RAISED: '1' },
  });
  process.exit(again.status ?? 1);
}

interface Workspace {
  orgId: string;
  key: string;
  leadIds: string[];
}

/** The idle subscribers' workspaces (200 leads each, for getById), then the one b and c write to. */
async function prepare(db: Db): Promise<{ idle: Workspace[]; fanout: Workspace }> {
  const workspaces: Workspace[] = [];
  for (let i = 1; i <= PLAN.workspaces; i++) {
    const { orgId } = await ensureWorkspace(db, `bench subscriptions ${i}`, LEADS_PER_WORKSPACE);
    const leadIds = (await db('leads').where('org_id', orgId).select('id')).map((r: { id: string }) => r.id);
    workspaces.push({ orgId, key: await createBenchKey(db, orgId), leadIds });
  }
  // Grows by the creates of each run; nothing reads its size.
  const fanoutId = await writesWorkspaceId(db, 'bench subscriptions fan-out');
  return { idle: workspaces, fanout: { orgId: fanoutId, key: await createBenchKey(db, fanoutId), leadIds: [] } };
}

const onEventPath = (input: object) => `/api/v1/rpc/events.onEvent?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;
const subscriberOf = (w: Workspace): SubscriberSpec => ({ path: onEventPath({}), headers: { Authorization: `Bearer ${w.key}` } });
const FANOUT_TYPE = 'lead.created';
const fanoutSubscriberOf = (w: Workspace): SubscriberSpec => ({ path: onEventPath({ types: [FANOUT_TYPE] }), headers: { Authorization: `Bearer ${w.key}` } });
const runTag = Date.now() % 100_000;
let created = 0;
/** A create's input: a name and a UK mobile no other create of this run has. */
function newLead(): { name: string; phone: string } {
  created += 1;
  return { name: `Bench subscriptions ${runTag} ${created}`, phone: `+4475${String((runTag * 1000 + created) % 100_000_000).padStart(8, '0')}` };
}

/** The workspace's events created since `since` (the database's clock), in order: ids and createdAt (epoch ms, to the microsecond). */
async function eventsSince(db: Db, orgId: string, since: Date): Promise<{ id: string; createdMs: number }[]> {
  return db('events').where({ org_id: orgId, type: FANOUT_TYPE }).where('created_at', '>=', since).orderBy([{ column: 'txid' }, { column: 'seq' }])
    .select('id', db.raw('(extract(epoch from created_at) * 1000)::float8 as "createdMs"'));
}

async function databaseNow(db: Db): Promise<Date> {
  return (await db.raw('select clock_timestamp() as now')).rows[0].now as Date;
}

async function measureIdle(side: 'ours' | 'peer', server: RunningServer, clients: SseClients, workspaces: Workspace[]): Promise<IdleResult> {
  const w0 = workspaces[0]!;
  const getByIdUrl = side === 'ours'
    ? `${server.baseUrl}/api/v1/rpc/leads.getById?input=${encodeURIComponent(JSON.stringify({ json: { id: w0.leadIds[0] } }))}`
    : `${server.baseUrl}/api/v1/rpc/leads.getById?input=${encodeURIComponent(JSON.stringify({ json: { orgId: w0.orgId, id: w0.leadIds[0] } }))}`;
  const headers = side === 'ours' ? { Authorization: `Bearer ${w0.key}` } : undefined;
  const getById = { url: getByIdUrl, headers, connections: 50, warmupSeconds: PLAN.warmup, seconds: PLAN.seconds };
  // Warm both paths a little, so what the first subscribers and requests load is not counted as theirs.
  for (let i = 0; i < 200; i++) await fetch(getByIdUrl, { headers }).then((r) => r.arrayBuffer());
  await clients.open(server.baseUrl, workspaces.flatMap((w) => Array.from({ length: 5 }, () => subscriberOf(w))), OPEN_CONCURRENCY);
  await clients.close();
  await sleep(3000);
  const cpuPercentSince = (cpuAt: number, at: number) => ((cpuTimeUs(server.pid) - cpuAt) / ((performance.now() - at) * 1000)) * 100;
  const [cpuBefore, beforeAt] = [cpuTimeUs(server.pid), performance.now()];
  const before = await steadyRssKb(server.pid);
  await sleep(3000);
  const baseCpuPercent = cpuPercentSince(cpuBefore, beforeAt);
  log(`  ${side}: opening ${PLAN.idle} idle subscribers over ${workspaces.length} workspaces`);
  const specs = Array.from({ length: PLAN.idle }, (_, i) => subscriberOf(workspaces[i % workspaces.length]!));
  const opened = await clients.open(server.baseUrl, specs, OPEN_CONCURRENCY);
  log(`    ${opened.opened} open in ${opened.seconds.toFixed(1)} s, ${opened.failed} failed`);
  await sleep(5000);
  const [cpuAt, afterAt] = [cpuTimeUs(server.pid), performance.now()];
  const after = await steadyRssKb(server.pid);
  await sleep(8000);
  const idleCpuPercent = cpuPercentSince(cpuAt, afterAt);
  // getById with them open, then without, in rounds (the subscribers opened again for each): one
  // pair of 10-second runs moved by 20% on this shared machine.
  const pairs: [CannonResult, CannonResult][] = [];
  let stillOpen = 0;
  for (let round = 1; round <= PLAN.rounds; round++) {
    if (round > 1) {
      await clients.open(server.baseUrl, specs, OPEN_CONCURRENCY);
      await sleep(5000);
    }
    log(`  ${side}: getById with them open (round ${round})`);
    const withThem = await runCannon(getById, server.pid);
    stillOpen = (await clients.stats()).open;
    await clients.close();
    await sleep(3000);
    log(`  ${side}: getById without (round ${round})`);
    const without = await runCannon(getById, server.pid);
    log(`    ${withThem.rps} / ${without.rps} req/s`);
    pairs.push([withThem, without]);
  }
  // The round of the median ratio stands for all in the table.
  const ratios = pairs.map(([w, wo]) => w.rps / wo.rps);
  const [getByIdWith, getByIdWithout] = [...pairs].sort((a, b) => a[0].rps / a[1].rps - b[0].rps / b[1].rps)[Math.floor(pairs.length / 2)]!;
  return {
    opened: opened.opened, failed: opened.failed, openSeconds: opened.seconds, rssBeforeMb: before / 1024, rssAfterMb: after / 1024,
    kbPerSubscriber: opened.opened > 0 ? (after - before) / opened.opened : NaN, idleCpuPercent, baseCpuPercent, stillOpen,
    getByIdWith, getByIdWithout, getByIdRatios: ratios,
  };
}

async function fanoutFigures(db: Db, clients: SseClients, orgId: string, since: Date, writes: PacedResult, conditions: Conditions): Promise<FanoutResult> {
  const expected = await eventsSince(db, orgId, since);
  const stats = await clients.stats();
  const verdict = await clients.verify(expected.map((e) => e.id));
  if (writes.failed > 0) log(`    ${writes.failed} writes not answered 200: ${JSON.stringify(writes.others)} (status: count; 0 is a network error)`);
  log(`    ${expected.length} events written; ${stats.receipts} receipts of ${stats.events} distinct events; ${JSON.stringify(verdict)}`);
  // Each write makes one event; the writes of one case commit in the order sent (a second apart in b).
  const writeAnswerMs = expected.length === writes.sent ? median(expected.map((e, i) => writes.answeredAt[i]! - e.createdMs)) : NaN;
  return {
    writeAnswerMs, reconnects: stats.reconnects, conditions,
    p50: histogramPercentile(stats.latency, 50), p99: histogramPercentile(stats.latency, 99),
    slowestMedian: median(stats.slowestPerEvent), slowestMax: Math.max(...stats.slowestPerEvent), verdict, writes,
  };
}

/** One event at a time (a leads.create through `writerUrl`), a second apart, to the fan-out subscribers. */
async function measureSingle(db: Db, server: RunningServer, clients: SseClients, w0: Workspace, writerUrl: string): Promise<FanoutResult> {
  await clients.reset();
  const since = await databaseNow(db);
  const writer = rpcWriter(writerUrl, w0.key);
  const conditions = watchConditions(db, server.pid);
  const writes = await pacedWrites(PLAN.singleEvents, 1, () => writer.send('leads.create', newLead()));
  await sleep(1000);
  writer.close();
  return fanoutFigures(db, clients, w0.orgId, since, writes, await conditions.stop());
}

async function measureSustained(db: Db, server: RunningServer, clients: SseClients, w0: Workspace, writerUrl: string): Promise<SustainedResult> {
  await clients.reset();
  const since = await databaseNow(db);
  const writer = rpcWriter(writerUrl, w0.key);
  const count = PLAN.rate * PLAN.duration;
  const conditions = watchConditions(db, server.pid);
  const cpuAt = cpuTimeUs(server.pid);
  const clientCpuAt = clients.cpuTimeUs();
  const started = performance.now();
  let atWindowEnd = 0;
  const windowEnd = sleep(PLAN.duration * 1000).then(async () => (atWindowEnd = (await clients.stats()).receipts));
  const writes = await pacedWrites(count, PLAN.rate, () => writer.send('leads.create', newLead()));
  await windowEnd;
  writer.close();
  const wanted = writes.ok * PLAN.fanout;
  let receipts = atWindowEnd;
  const deadline = performance.now() + DRAIN_MS;
  while (receipts < wanted && performance.now() < deadline) {
    await sleep(250);
    receipts = (await clients.stats()).receipts;
  }
  const drainedSeconds = (performance.now() - started) / 1000 - PLAN.duration;
  const elapsedUs = (performance.now() - started) * 1000;
  const serverCpuUs = cpuTimeUs(server.pid) - cpuAt;
  const clientCpuPercent = ((clients.cpuTimeUs() - clientCpuAt) / elapsedUs) * 100;
  const figures = await fanoutFigures(db, clients, w0.orgId, since, writes, await conditions.stop());
  return {
    ...figures, deliveredPerSecond: atWindowEnd / PLAN.duration, drainedSeconds, caughtUp: receipts >= wanted,
    serverCpuUsPerDelivery: receipts > 0 ? serverCpuUs / receipts : NaN, clientCpuPercent,
  };
}

async function measureSide(side: 'ours' | 'peer', db: Db, { idle: workspaces, fanout: w0 }: { idle: Workspace[]; fanout: Workspace }, writer: RunningServer, oursEntry: string): Promise<SideResult> {
  const server = side === 'ours'
    ? await startServer('ours', [...PROFILE_ARGS, ...serviceArgs(oursEntry, serviceDir)], { ...serviceEnv(url), SSE_PING_MS: String(PING_MS) })
    : await startServer('peer', [...PROFILE_ARGS, '--import', 'tsx', 'bench/servers/trpc-sse-peer.ts'], { DATABASE_URL: url, DB_POOL_MAX: BENCH_POOL_MAX, PING_MS: String(PING_MS) });
  const clients = SseClients.start(PLAN.clientProcesses);
  const result: SideResult = {};
  try {
    if (CASES.includes('a')) result.idle = await measureIdle(side, server, clients, workspaces);
    log(`  ${side}: ${PLAN.fanout} subscribers of one workspace`);
    const opened = await clients.open(server.baseUrl, Array.from({ length: PLAN.fanout }, () => fanoutSubscriberOf(w0)), OPEN_CONCURRENCY);
    if (opened.failed > 0) log(`    ${opened.failed} failed to open`);
    await sleep(2000);
    if (CASES.includes('b')) {
      log(`  ${side}: ${PLAN.singleEvents} single events, written on another instance`);
      result.single = await measureSingle(db, server, clients, w0, writer.baseUrl);
    }
    if (side === 'ours' && CASES.includes('b')) {
      log(`  ${side}: ${PLAN.singleEvents} single events, written on the same instance`);
      result.singleSameInstance = await measureSingle(db, server, clients, w0, server.baseUrl);
    }
    if (CASES.includes('c')) {
      log(`  ${side}: ${PLAN.rate} events/s for ${PLAN.duration} s`);
      result.sustained = await measureSustained(db, server, clients, w0, writer.baseUrl);
    }
    await clients.close();
  } finally {
    clients.stop();
    await server.stop();
  }
  return result;
}

async function main(): Promise<void> {
  ensureOpenFileLimit(Math.max(PLAN.idle, PLAN.fanout) + 1024);
  const started = performance.now();
  const loads = [loadavg()];
  const db = await openBenchDatabase(url);
  try {
    const workspaces = await prepare(db);
    const pgVersion = await postgresVersion(db);
    log('building ours');
    const oursEntry = buildService(serviceDir);
    const writer = await startServer('writer', serviceArgs(oursEntry, serviceDir), serviceEnv(url));
    const results: Partial<Record<'ours' | 'peer', SideResult>> = {};
    try {
      for (const side of SIDES) results[side] = await measureSide(side, db, workspaces, writer, oursEntry);
    } finally {
      await writer.stop();
    }
    loads.push(loadavg());
    process.stdout.write(`${report({ ...PLAN, pingMs: PING_MS, poolMax: BENCH_POOL_MAX, sides: SIDES }, results, pgVersion, loads)}\n`);
    log(`done in ${Math.round((performance.now() - started) / 1000)} s (${cpus().length} cores)`);
  } finally {
    await db.destroy();
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
