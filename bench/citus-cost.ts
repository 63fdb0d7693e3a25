import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import pg from 'pg';
import { createDb, type Db } from '../src/db/knex';
import { migrateLatest } from '../src/db/migrator';
import { createBenchKey, ensureWorkspace, sampleOf, writesWorkspaceId } from './lib/dataset';
import { WORKSPACE_TABLES } from '../migrations/20261210120000_writes_without_hot_rows';
import { cpuTimeUs, serviceArgs, serviceEnv, startServer } from './lib/processes';
import type { CannonJob, CannonResult } from './lib/cannon';

/**
 * `npx tsx bench/citus-cost.ts [--leads 100000] [--rounds 2] [--seconds 10] [--warmup 3] [--connections 50] [--seed-cluster] [--env NAME=value]... [--keep-databases]`
 *
 * The cost of a request on the Citus cluster against one PostgreSQL on the same machine: a fresh
 * database on each (one node: postgres://postgres@127.0.0.1:5432; cluster: ../shared/citus/cluster.sh
 * createdb), the same workspace of `--leads` leads (loaded by the bulk seeder into the one node and
 * copied into the cluster, or with --seed-cluster seeded there too), the compiled service
 * started on each in turn, and autocannon on getById, the REST list's first page and create. The
 * rounds alternate which database goes first. Besides req/s and latency it reports the CPU time
 * per request of the service and of the database's own backends (on every node, found by the
 * database's name in their process title), which the other work on a shared machine moves less.
 */

const ROOT = resolve(__dirname, '..');
const CLUSTER = process.env.CITUS_CLUSTER_SH ?? '/work/shared/citus/cluster.sh';
const ONE_NODE_ADMIN = process.env.ONE_NODE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
}
const LEADS = option('leads', 100_000);
const ROUNDS = option('rounds', 2);
const SECONDS = option('seconds', 10);
const WARMUP = option('warmup', 3);
const CONNECTIONS = option('connections', 50);
const KEEP = process.argv.includes('--keep-databases');
/**
 * Load the cluster with the bulk seeder too. Without it (the default) the cluster gets a copy of
 * the one node's workspace: the same rows on both, and it works while the seeder's multi-lead
 * writes cannot run on Citus (`set local plan_cache_mode = force_generic_plan` before an
 * INSERT ... SELECT ... ON CONFLICT: "could not create distributed plan").
 */
const SEED_CLUSTER = process.argv.includes('--seed-cluster');
/** `--env NAME=value` (repeatable): the service's environment on both databases, e.g. DB_NAMED_STATEMENTS=false. */
const SERVICE_ENV = Object.fromEntries(process.argv.flatMap((arg, i) => (process.argv[i - 1] === '--env' ? [arg.split(/=(.*)/s).slice(0, 2)] : [])));

type CaseName = 'getById' | 'list first page' | 'create';
const CASES: CaseName[] = ['getById', 'list first page', 'create'];

interface Target {
  label: 'one node' | 'cluster';
  name: string;
  url: string;
  orgId: string;
  key: string;
  leadId: string;
  writesKey: string;
  version: string;
  load: string;
}

interface Measured extends CannonResult {
  serviceCpuUs: number;
  databaseCpuUs: number;
  /**
   * The share of the machine's CPU time (%) used over the counted run by everything but this
   * measurement (the service, the database's backends, autocannon): other people's work, the noise.
   */
  othersCpu: number;
}

/** Busy and total jiffies of all CPUs so far (/proc/stat's first line; idle and iowait count as not busy). */
function machineJiffies(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - fields[3]! - fields[4]!, total };
}

function log(message: string): void {
  process.stderr.write(`[citus-cost ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

async function onAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  let client = new pg.Client({ connectionString: ONE_NODE_ADMIN });
  // The shared PostgreSQL is sometimes at max_connections with other people's test runs: wait a little.
  for (let attempt = 1; ; attempt++) {
    try {
      await client.connect();
      break;
    } catch (err) {
      if (attempt === 10 || !/too many clients/.test((err as Error).message)) throw err;
      log(`one node: ${(err as Error).message}; retrying in 10 s`);
      await new Promise((done) => setTimeout(done, 10_000));
      client = new pg.Client({ connectionString: ONE_NODE_ADMIN });
    }
  }
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Migrates a database; with `seed`, loads the workspace with the bulk seeder. Answers the workspace's id. */
async function migrateAndSeed(url: string, seed: boolean): Promise<{ orgId?: string; seconds: number }> {
  const db: Db = createDb({ url, poolMax: 4, onWarning: () => undefined });
  try {
    await migrateLatest(db);
    if (!seed) return { seconds: 0 };
    const started = performance.now();
    const { orgId } = await ensureWorkspace(db, `cost ${LEADS}`, LEADS);
    return { orgId, seconds: Math.round((performance.now() - started) / 100) / 10 };
  } finally {
    await db.destroy();
  }
}

/**
 * Copies the seeded workspace's rows, table by table in the order their foreign keys need
 * (psql's \copy, one pipe per table), into the cluster: the same data on both databases.
 * Generated columns are left for the target to compute.
 */
async function copyWorkspace(fromUrl: string, toUrl: string, orgId: string): Promise<number> {
  if (!/^[A-Za-z0-9_]+$/.test(orgId)) throw new Error(`unexpected workspace id ${orgId}`);
  const started = performance.now();
  const from = createDb({ url: fromUrl, poolMax: 1, onWarning: () => undefined });
  try {
    for (const table of ['organisations', ...WORKSPACE_TABLES]) {
      const { rows } = await from.raw(
        `select string_agg(quote_ident(attname), ',' order by attnum) as columns from pg_attribute
         where attrelid = ?::regclass and attnum > 0 and not attisdropped and attgenerated = ''`,
        [table],
      );
      const columns = rows[0].columns as string;
      const where = table === 'organisations' ? `id = '${orgId}'` : `org_id = '${orgId}'`;
      const copied = spawnSync('bash', ['-c', 'set -o pipefail; psql -X -q "$FROM" -c "$OUT" | psql -X -q "$TO" -c "$IN"'], {
        encoding: 'utf8',
        env: { ...process.env, FROM: fromUrl, TO: toUrl, OUT: `\\copy (select ${columns} from ${table} where ${where}) to stdout`, IN: `\\copy ${table} (${columns}) from stdin` },
      });
      if (copied.status !== 0) throw new Error(`copying ${table}: ${copied.stderr}`);
    }
  } finally {
    await from.destroy();
  }
  const to = createDb({ url: toUrl, poolMax: 1, onWarning: () => undefined });
  try {
    await to.raw(`vacuum (analyze) ${['organisations', ...WORKSPACE_TABLES].join(', ')}`);
    const counted = Number((await to.raw('select count(*) as n from leads where org_id = ?', [orgId])).rows[0].n);
    if (counted !== LEADS) throw new Error(`the copy holds ${counted} leads, not ${LEADS}`);
  } finally {
    await to.destroy();
  }
  return Math.round((performance.now() - started) / 100) / 10;
}

/** The workspace's sample lead, a key to it, and the writes workspace with its key. */
async function finish(label: Target['label'], name: string, url: string, orgId: string, load: string): Promise<Target> {
  const db: Db = createDb({ url, poolMax: 4, onWarning: () => undefined });
  try {
    const sample = await sampleOf(db, orgId);
    const writesOrgId = await writesWorkspaceId(db);
    const versions = (await db.raw(`select version() as pg, (select extversion from pg_extension where extname = 'citus') as citus`)).rows[0];
    return {
      label, name, url, orgId, key: await createBenchKey(db, orgId), leadId: sample.leadId,
      writesKey: await createBenchKey(db, writesOrgId),
      version: `${versions.pg.split(' on ')[0]}${versions.citus ? `, Citus ${versions.citus}` : ''}`,
      load,
    };
  } finally {
    await db.destroy();
  }
}

/** The compiled service, in a folder of this script's own (another benchmark may be building .tmp/bench-dist). */
function buildService(): string {
  const outDir = resolve(ROOT, '.tmp/citus-cost-dist');
  const built = spawnSync(resolve(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json', '--outDir', outDir], { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });
  const entry = resolve(outDir, 'src/index.js');
  if (!existsSync(entry)) throw new Error(`build produced no ${entry}:\n${built.stdout}${built.stderr}`);
  if (built.status !== 0) log(`note: tsc reported errors (it still emitted): ${built.stdout.split('\n')[0]}`);
  return entry;
}

/**
 * CPU time of the PostgreSQL processes serving database `name` (their title names it), on every
 * node, sampled every 250 ms so a backend that exits meanwhile still counts up to its last sample.
 */
function databaseCpu(name: string) {
  const start = new Map<number, number>();
  const last = new Map<number, number>();
  const read = (first: boolean) => {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const pid = Number(entry);
      try {
        if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
        const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (!title.includes(` ${name} `)) continue;
        const cpu = cpuTimeUs(pid);
        if (first) start.set(pid, cpu);
        last.set(pid, cpu);
      } catch {
        // Gone between the listing and the read.
      }
    }
  };
  read(true);
  const timer = setInterval(() => read(false), 250);
  return {
    stop(): number {
      clearInterval(timer);
      read(false);
      let total = 0;
      for (const [pid, cpu] of last) total += cpu - (start.get(pid) ?? 0);
      return total;
    },
  };
}

/** bench/lib/cannon.ts in its own process; the CPU counters start when it says the counted run starts. */
async function runCannon(job: CannonJob, servicePid: number, databaseName: string): Promise<Measured> {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'bench/lib/cannon.ts')], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin!.end(JSON.stringify(job));
  let out = '';
  let err = '';
  let serviceAtStart: number | undefined;
  let machineAtStart: ReturnType<typeof machineJiffies> | undefined;
  let cannonAtStart = 0;
  let cannonLast = 0;
  let cannonTimer: NodeJS.Timeout | undefined;
  const readCannon = () => {
    try {
      cannonLast = cpuTimeUs(child.pid!);
    } catch {
      // It has exited: its last sample stands.
    }
  };
  let database: ReturnType<typeof databaseCpu> | undefined;
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => {
    err += chunk;
    if (serviceAtStart === undefined && err.includes('COUNTED_RUN_STARTS')) {
      serviceAtStart = cpuTimeUs(servicePid);
      machineAtStart = machineJiffies();
      readCannon();
      cannonAtStart = cannonLast;
      cannonTimer = setInterval(readCannon, 250);
      database = databaseCpu(databaseName);
    }
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), (job.warmupSeconds + job.seconds + 60) * 1000);
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  clearTimeout(timer);
  const databaseUs = database?.stop() ?? NaN;
  const machine = machineJiffies();
  clearInterval(cannonTimer);
  if (code !== 0) throw new Error(`autocannon exited ${code}: ${err}`);
  const result = JSON.parse(out) as CannonResult;
  const n = Math.max(1, result.requests);
  const serviceUs = cpuTimeUs(servicePid) - serviceAtStart!;
  // /proc/stat counts in clock ticks of 10 ms.
  const busyUs = (machine.busy - machineAtStart!.busy) * 10_000;
  const totalUs = Math.max(1, (machine.total - machineAtStart!.total) * 10_000);
  const othersCpu = Math.max(0, Math.round((100 * (busyUs - serviceUs - databaseUs - (cannonLast - cannonAtStart))) / totalUs));
  return { ...result, serviceCpuUs: Math.round(serviceUs / n), databaseCpuUs: Math.round(databaseUs / n),
    othersCpu };
}

function jobOf(target: Target, base: string, which: CaseName, block: number): CannonJob {
  const timing = { connections: CONNECTIONS, warmupSeconds: WARMUP, seconds: SECONDS };
  if (which === 'create') {
    // A block of 100,000 distinct UK mobiles per (round, database): +447400bnnnnn.
    const bodies = Array.from({ length: 30_000 }, (_, i) => JSON.stringify({
      json: { name: `Cost ${block}-${i}`, phone: `+447400${String(block * 100_000 + i).padStart(6, '0')}` },
    }));
    return { ...timing, url: `${base}/api/v1/rpc/leads.create`, method: 'POST', headers: { Authorization: `Bearer ${target.writesKey}`, 'content-type': 'application/json' }, bodies };
  }
  const url = which === 'getById'
    ? `${base}/api/v1/rpc/leads.getById?input=${encodeURIComponent(JSON.stringify({ json: { id: target.leadId } }))}`
    : `${base}/api/v1/leads?pageSize=100`;
  return { ...timing, url, headers: { Authorization: `Bearer ${target.key}` } };
}

/** Error-level lines of the service's JSON log, distinct, with counts. */
function serviceErrors(logFile: string): string[] {
  const distinct = new Map<string, number>();
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { level?: number; msg?: string; err?: { code?: string; message?: string } };
      if ((entry.level ?? 0) < 50 || entry.msg === 'request') continue;
      const what = `${entry.msg} | ${entry.err?.code ?? ''} ${entry.err?.message ?? ''}`.slice(0, 300);
      distinct.set(what, (distinct.get(what) ?? 0) + 1);
    } catch {
      // Not JSON.
    }
  }
  return [...distinct].map(([what, n]) => `${n} x ${what}`);
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const fmt = (v: number, digits = 1) => (Number.isFinite(v) ? v.toFixed(digits) : '-');

async function main(): Promise<void> {
  const tag = Date.now().toString(36);
  const onePgName = `wsapi_citus_cost_one_${tag}`;
  const clusterName = `wsapi_citus_cost_${tag}`;
  const targets: Target[] = [];
  const drops: (() => unknown)[] = [];
  try {
    log(`one node: database ${onePgName}`);
    await onAdmin((client) => client.query(`create database ${onePgName}`));
    drops.push(() => onAdmin((client) => client.query(`drop database if exists ${onePgName} with (force)`)));
    const oneUrl = ONE_NODE_ADMIN.replace(/\/[^/]*$/, `/${onePgName}`);
    const one = await migrateAndSeed(oneUrl, true);
    log(`one node: ${LEADS} leads loaded in ${one.seconds} s`);
    log(`cluster: database ${clusterName}`);
    const clusterUrl = execFileSync(CLUSTER, ['createdb', clusterName], { encoding: 'utf8' }).trim().split('\n').at(-1)!;
    drops.push(() => execFileSync(CLUSTER, ['dropdb', clusterName], { stdio: 'ignore' }));
    const cluster = await migrateAndSeed(clusterUrl, SEED_CLUSTER);
    const clusterLoad = SEED_CLUSTER
      ? `${LEADS} leads loaded by the bulk seeder in ${cluster.seconds} s`
      : `the one node's workspace copied in ${await copyWorkspace(oneUrl, clusterUrl, one.orgId!)} s`;
    log(`cluster: ${clusterLoad}`);
    targets.push(await finish('one node', onePgName, oneUrl, one.orgId!, `${LEADS} leads loaded by the bulk seeder in ${one.seconds} s`));
    targets.push(await finish('cluster', clusterName, clusterUrl, cluster.orgId ?? one.orgId!, clusterLoad));

    const entry = buildService();
    const results = new Map<string, Measured[]>();
    const errors: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      for (const target of order) {
        const logFile = `/tmp/citus-cost-${tag}-${target.label.replace(' ', '-')}-${round}.log`;
        const server = await startServer(target.label, serviceArgs(entry), { ...serviceEnv(target.url), ...SERVICE_ENV }, logFile);
        try {
          for (const which of CASES) {
            const block = round * 2 + targets.indexOf(target);
            const result = await runCannon(jobOf(target, server.baseUrl, which, block), server.pid, target.name);
            log(`round ${round + 1} ${target.label} ${which}: ${result.rps} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}, service ${result.serviceCpuUs} us/req, database ${result.databaseCpuUs} us/req, others' CPU ${result.othersCpu}%`);
            results.set(`${target.label}|${which}`, [...(results.get(`${target.label}|${which}`) ?? []), result]);
            // Requests autocannon left queued in the service (creates on the cluster wait seconds) finish before the next case.
            await new Promise((done) => setTimeout(done, which === 'create' ? 8000 : 2000));
          }
        } finally {
          await server.stop();
        }
        errors.push(...serviceErrors(logFile).map((e) => `${target.label}, round ${round + 1}: ${e}`));
      }
    }

    const cpu = cpus();
    const lines = [
      `### Cost of a request: Citus cluster against one PostgreSQL (${new Date().toISOString()})`,
      '',
      `- machine: ${cpu.length} cores (${cpu[0]?.model.trim()}), Node ${process.version}; one node: ${targets[0]!.version}; cluster: ${targets[1]!.version}, coordinator + 2 workers on this machine`,
      `- data: one workspace of ${LEADS} leads on each (${targets.map((t) => `${t.label}: ${t.load}`).join('; ')}); creates go to a second workspace; service compiled, pool ${serviceEnv('postgres://x/y').DB_POOL_MAX}, request log on${Object.keys(SERVICE_ENV).length ? `, ${Object.entries(SERVICE_ENV).map(([k, v]) => `${k}=${v}`).join(' ')}` : ''}`,
      `- autocannon at ${CONNECTIONS} connections, ${WARMUP} s warm-up then ${SECONDS} s counted, ${ROUNDS} rounds alternating which database goes first; figures are the mean of the rounds, the ratio column gives each round's ratio`,
      '',
      "| case | one node req/s | cluster req/s | cluster/one node req/s (rounds) | p50 ms one / cluster | p99 ms one / cluster | service CPU us/req one / cluster | database CPU us/req one / cluster | non-2xx+errors one / cluster | others' CPU % one / cluster |",
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ];
    for (const which of CASES) {
      const one = results.get(`one node|${which}`)!;
      const cl = results.get(`cluster|${which}`)!;
      const m = (rs: Measured[], key: keyof Measured) => mean(rs.map((r) => Number(r[key])));
      const ratios = one.map((r, i) => cl[i]!.rps / r.rps);
      lines.push(`| ${which} | ${fmt(m(one, 'rps'), 0)} | ${fmt(m(cl, 'rps'), 0)} | **${fmt(m(cl, 'rps') / m(one, 'rps'), 2)}** (${ratios.map((r) => fmt(r, 2)).join(', ')}) | ${fmt(m(one, 'p50'))} / ${fmt(m(cl, 'p50'))} | ${fmt(m(one, 'p99'))} / ${fmt(m(cl, 'p99'))} | ${fmt(m(one, 'serviceCpuUs'), 0)} / ${fmt(m(cl, 'serviceCpuUs'), 0)} | ${fmt(m(one, 'databaseCpuUs'), 0)} / ${fmt(m(cl, 'databaseCpuUs'), 0)} | ${one.reduce((n, r) => n + r.non2xx + r.errors, 0)} / ${cl.reduce((n, r) => n + r.non2xx + r.errors, 0)} | ${fmt(m(one, 'othersCpu'), 0)} / ${fmt(m(cl, 'othersCpu'), 0)} |`);
    }
    if (errors.length) lines.push('', 'service log errors:', ...errors.slice(0, 10).map((e) => `- ${e}`));
    console.log(lines.join('\n'));
  } finally {
    if (KEEP) log(`kept databases ${onePgName} (one node) and ${clusterName} (cluster)`);
    else for (const drop of drops) await drop();
  }
}

main().catch((err) => {
  console.error(`citus-cost failed: ${(err as Error).stack ?? String(err)}`);
  process.exitCode = 1;
});
