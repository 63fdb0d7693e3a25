import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import type { Db } from '../src/db/knex';
import { openBenchDatabase, ensureWorkspace, createBenchKey, sampleOf, DEFAULT_BENCH_URL, writesWorkspaceId, postgresVersion } from './lib/dataset';
import { withServer, buildService, runCannon, serviceEnv, serviceArgs, postmasterOf, BENCH_POOL_MAX } from './lib/processes';
import { table, machineLine, median, type Row } from './lib/report';
import type { CannonJob, CannonRequest, CannonResult } from './lib/cannon';

// `npm run bench:writes [-- --quick] [-- --upsert-only]`: the write path's targets, as ratios measured in one run on
// one machine, every server alone as its own process against one database (BENCH_DATABASE_URL, or
// wsapi_bench). Each case starts once no autovacuum worker runs (settle). Prints a Markdown
// report to stdout, progress to stderr.
// - create: the bare create ceiling (servers/create-ceiling.ts) against ours (leads.create), 50
//   connections into one workspace and spread over ten, in rounds taking turns, with the median
//   and each round's figures (so growth round by round shows);
// - ours' PostgreSQL CPU per create in a 10,000-lead workspace and in the million-lead one
//   (`bench large 1000000`, the one `npm run bench` loads; --quick: `bench large 100000`) at a
//   fixed rate, in rounds; the creates are deleted after each case (leads.delete and
//   contacts.delete), so both keep their sizes and `npm run bench` never loads them again;
// - leads.upsert against leads.create in the same rounds, 50 connections into one workspace, half
//   the upserts new external ids (creates) and half ids held already (updates); `--upsert-only`
//   runs these two alone (no ceilings, no large workspace), a few minutes;
// - leads.update on random leads of the 10,000-lead workspace;
// - reads: getById against the bare Express ceiling (servers/ceiling.ts), the REST list's first page.
// BENCH_SERVICE_DIR names the checkout whose service is built and started (default: this one), to
// measure an older commit from a git worktree (`git worktree add /tmp/old <commit> && ln -s
// $PWD/node_modules /tmp/old/`). The database is migrated by this checkout's code, so the older
// service must accept that schema: an older commit whose migrations are fewer refuses to start.
const quick = process.argv.includes('--quick');
const upsertOnly = process.argv.includes('--upsert-only');
/** The external ids the upsert case finds held: made before the rounds, updated by half its calls. */
const HELD_EXTERNAL_IDS = 1000;
const PLAN = quick
  ? { large: 100_000, small: 10_000, warmup: 1, seconds: 3 }
  : { large: 1_000_000, small: 10_000, warmup: 2, seconds: 8 };
const ROUNDS = 3;
const CONNECTIONS = 50;
const SPREAD = 10;
/**
 * Creates per second in the workspace-size cases: a fixed rate below what ours sustains (one
 * workspace at full speed: 71-244 req/s in docs/performance.md, 20-100 on a busy 2-core machine),
 * so both sizes do the same work per second; at full speed the slower one would batch less and pay
 * more CPU per create for it. Each case's creates are deleted after it, which takes longer than
 * making them: the rate is also what keeps a full run within about 8 minutes.
 */
const SIZE_RATE = 50;
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
const serviceDir = resolve(process.env.BENCH_SERVICE_DIR ?? resolve(__dirname, '..'));
/** Every contact this benchmark creates is named so: what the clean-up deletes, and nothing else. */
const NAME_PREFIX = 'Bench writes';
const runTag = Date.now() % 1_000_000;
const rows: Row[] = [];
/** The database server's postmaster, when it runs on this machine: PostgreSQL CPU counts its processes alone. */
let postmasterPid: number | undefined;

/** The benchmark's own connection, for `settle`. */
let benchDb: Db;

/**
 * Until no autovacuum worker runs (at most a minute): each case starts on a quiet database, so its
 * CPU per request is its own, not the vacuum that the previous case's writes (or deletes) set off.
 */
async function settle(): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const { rows } = await benchDb.raw("select count(*)::int as n from pg_stat_activity where backend_type = 'autovacuum worker'");
    if (rows[0].n === 0) return;
    await new Promise((done) => setTimeout(done, 500));
  }
}

async function measure(name: string, job: Omit<CannonJob, 'warmupSeconds' | 'seconds' | 'connections'>, serverPid: number, tail: Row['tail'] = 'p99'): Promise<CannonResult> {
  await settle();
  process.stderr.write(`  ${name}\n`);
  const result = await runCannon({ ...job, connections: CONNECTIONS, warmupSeconds: PLAN.warmup, seconds: PLAN.seconds }, serverPid, postmasterPid);
  rows.push({ name, connections: CONNECTIONS, result, tail });
  if (result.errors + result.non2xx > 0) process.stderr.write(`    ${result.errors} errors, ${result.non2xx} non-2xx answers\n`);
  return result;
}

let sent = 0;
/** A create's input: a name no other create of this run has, a valid UK mobile (07400...). */
function newLeadInput(): { name: string; phone: string } {
  sent += 1;
  return { name: `${NAME_PREFIX} ${runTag} ${sent}`, phone: `+4474${String(sent % 100_000_000).padStart(8, '0')}` };
}
const BODIES = 5000;
const json = { 'content-type': 'application/json' };

async function rpc(baseUrl: string, key: string, name: string, input: unknown): Promise<void> {
  const res = await fetch(`${baseUrl}/api/v1/rpc/${name}`, {
    method: 'POST', headers: { ...json, Authorization: `Bearer ${key}` }, body: JSON.stringify({ json: input }),
  });
  if (!res.ok) throw new Error(`${name}: ${res.status} ${await res.text()}`);
}

/**
 * Deletes, through ours at `baseUrl`, the leads beyond the workspace's first `keep` (the newest,
 * which this benchmark created) and their contacts, so it holds `keep` leads again, the counters
 * and stored JSON kept right by the service's own deletes. Refuses when one of them is not ours.
 */
async function removeCreated(db: Db, baseUrl: string, key: string, orgId: string, keep: number): Promise<number> {
  const counted = await db('leads').where('org_id', orgId).count({ n: '*' });
  const extra = Number(counted[0]?.n) - keep;
  if (extra <= 0) return 0;
  const created: { leadId: string; contactId: string; name: string }[] = await db('leads as l')
    .join('contacts as c', function joinContact() {
      this.on('c.org_id', 'l.org_id').andOn('c.id', 'l.contact_id');
    })
    .where('l.org_id', orgId).orderBy('l.created_at', 'desc').limit(extra)
    .select('l.id as leadId', 'c.id as contactId', 'c.name');
  const foreign = created.find((r) => !r.name.startsWith(`${NAME_PREFIX} `));
  if (foreign) throw new Error(`workspace ${orgId} holds ${extra} leads more than ${keep}, and lead ${foreign.leadId} is not one this benchmark made`);
  let next = 0;
  const worker = async () => {
    while (next < created.length) {
      const { leadId, contactId } = created[next++]!;
      await rpc(baseUrl, key, 'leads.delete', { id: leadId });
      await rpc(baseUrl, key, 'contacts.delete', { id: contactId });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return created.length;
}

/**
 * removeCreated until nothing is left: autocannon stops with requests in flight, and the server
 * still commits those creates after it has gone.
 */
async function removeAllCreated(db: Db, baseUrl: string, key: string, orgId: string, keep: number): Promise<number> {
  let total = 0;
  for (;;) {
    await new Promise((done) => setTimeout(done, 1000));
    const deleted = await removeCreated(db, baseUrl, key, orgId, keep);
    if (deleted === 0) return total;
    total += deleted;
  }
}

/** The workspace named `name`'s id, when there is exactly one. */
async function workspaceNamed(db: Db, name: string): Promise<string | undefined> {
  const found = await db('organisations').where({ name }).select('id');
  return found.length === 1 ? (found[0].id as string) : undefined;
}

function describeCheckout(dir: string): string {
  const git = (...args: string[]) => spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
  const head = git('rev-parse', '--short', 'HEAD');
  if (head.status !== 0) return dir;
  const dirty = git('status', '--porcelain', '--', 'src', 'migrations').stdout.trim() !== '';
  return `${dir} at ${head.stdout.trim()}${dirty ? ' with uncommitted changes under src/ or migrations/' : ''}`;
}

async function main(): Promise<void> {
  const started = performance.now();
  process.stderr.write(`building the service in ${serviceDir}\n`);
  const entry = buildService(serviceDir);
  const oursArgs = serviceArgs(entry, serviceDir);
  const oursEnv = serviceEnv(url);
  const env = { DATABASE_URL: url, DB_POOL_MAX: BENCH_POOL_MAX };
  const tsx = (file: string) => ['--import', 'tsx', file];

  const db = await openBenchDatabase(url);
  benchDb = db;
  const largeName = `bench large ${PLAN.large}`;
  const smallName = `bench writes ${PLAN.small}`;
  // A run stopped during a size case leaves its creates behind; deleted here, or ensureWorkspace
  // would load the whole workspace again.
  for (const [name, leads] of upsertOnly ? [] : [[largeName, PLAN.large], [smallName, PLAN.small]] as const) {
    const orgId = await workspaceNamed(db, name);
    const counted = orgId ? await db('leads').where('org_id', orgId).count({ n: '*' }) : [];
    if (orgId && Number(counted[0]?.n) > leads) {
      const key = await createBenchKey(db, orgId);
      await withServer('ours', oursArgs, oursEnv, async (s) => {
        process.stderr.write(`deleting the creates a stopped run left in ${name}\n`);
        await removeAllCreated(db, s.baseUrl, key, orgId, leads);
      });
    }
  }
  const large = upsertOnly ? { orgId: '', loaded: undefined } : await ensureWorkspace(db, largeName, PLAN.large, { rebuildIndexes: true });
  const small = upsertOnly ? { orgId: '', loaded: undefined } : await ensureWorkspace(db, smallName, PLAN.small);
  const writes = await writesWorkspaceId(db);
  const spread: string[] = [];
  for (let i = 1; i <= SPREAD; i++) spread.push(await writesWorkspaceId(db, `bench writes spread ${i}`));
  const keys = {
    large: upsertOnly ? '' : await createBenchKey(db, large.orgId),
    small: upsertOnly ? '' : await createBenchKey(db, small.orgId),
    writes: await createBenchKey(db, writes),
    spread: [] as string[],
  };
  for (const orgId of spread) keys.spread.push(await createBenchKey(db, orgId));
  const sample = upsertOnly ? { leadId: '' } : await sampleOf(db, large.orgId);
  const smallLeadIds = upsertOnly ? [] : (await db('leads').where('org_id', small.orgId).select('id')).map((r: { id: string }) => r.id);
  const pgVersion = await postgresVersion(db);
  postmasterPid = postmasterOf(Number((await db.raw('select pg_backend_pid() as pid')).rows[0].pid));

  // The jobs. Every create has a body of its own (BODIES of them, sent in turn).
  const createPath = '/api/v1/rpc/leads.create';
  const bodies = (wrap: boolean) => Array.from({ length: BODIES }, () => JSON.stringify(wrap ? { json: newLeadInput() } : newLeadInput()));
  const ceilingOne = (base: string): Omit<CannonJob, 'warmupSeconds' | 'seconds' | 'connections'> =>
    ({ url: `${base}/leads/${writes}`, method: 'POST', headers: json, bodies: bodies(false) });
  const ceilingSpread = (base: string) => ({
    url: `${base}/leads/${spread[0]}`, method: 'POST' as const, headers: json,
    requests: Array.from({ length: BODIES }, (_, i): CannonRequest => ({ path: `/leads/${spread[i % SPREAD]}`, body: JSON.stringify(newLeadInput()) })),
  });
  const oursInto = (base: string, key: string) => ({ url: `${base}${createPath}`, method: 'POST' as const, headers: { ...json, Authorization: `Bearer ${key}` }, bodies: bodies(true) });
  const oursSpread = (base: string) => ({
    url: `${base}${createPath}`, method: 'POST' as const, headers: json,
    requests: Array.from({ length: BODIES }, (_, i): CannonRequest => ({ headers: { Authorization: `Bearer ${keys.spread[i % SPREAD]}` }, body: JSON.stringify({ json: newLeadInput() }) })),
  });
  // leads.upsert: even bodies a new external id (a create), odd ones an id held already (an update).
  const heldIds = Array.from({ length: HELD_EXTERNAL_IDS }, (_, i) => `bench-held-${runTag}-${i}`);
  let upserts = 0;
  const upsertBodies = () => Array.from({ length: BODIES }, (_, i) => {
    const externalId = i % 2 === 0 ? `bench-new-${runTag}-${++upserts}` : heldIds[Math.floor(Math.random() * heldIds.length)]!;
    return JSON.stringify({ json: { externalId, ...newLeadInput() } });
  });
  const upsertInto = (base: string, key: string) => ({
    url: `${base}/api/v1/rpc/leads.upsert`, method: 'POST' as const, headers: { ...json, Authorization: `Bearer ${key}` }, bodies: upsertBodies(),
  });
  const getByIdUrl = (base: string) => `${base}/api/v1/rpc/leads.getById?input=${encodeURIComponent(JSON.stringify({ json: { id: sample.leadId } }))}`;

  const series = new Map<string, CannonResult[]>();
  const add = (name: string, result: CannonResult) => series.set(name, [...(series.get(name) ?? []), result]);

  await withServer('ours', oursArgs, oursEnv, async (s) => {
    process.stderr.write(`holding ${HELD_EXTERNAL_IDS} external ids for the upsert case\n`);
    for (const externalId of heldIds) await rpc(s.baseUrl, keys.writes, 'leads.upsert', { externalId, ...newLeadInput() });
  });

  process.stderr.write('measuring\n');
  for (let round = 1; round <= ROUNDS; round++) {
    process.stderr.write(`round ${round} of ${ROUNDS}\n`);
    if (upsertOnly) {
      await withServer('ours', oursArgs, oursEnv, async (s) => {
        add('create one ours', await measure(`ours leads.create: one workspace (round ${round})`, oursInto(s.baseUrl, keys.writes), s.pid));
        add('upsert one ours', await measure(`ours leads.upsert: one workspace, half creates (round ${round})`, upsertInto(s.baseUrl, keys.writes), s.pid));
      });
      continue;
    }
    await withServer('create ceiling', tsx('bench/servers/create-ceiling.ts'), env, async (s) => {
      add('create one ceiling', await measure(`create ceiling: one workspace (round ${round})`, ceilingOne(s.baseUrl), s.pid));
      add('create spread ceiling', await measure(`create ceiling: ${SPREAD} workspaces (round ${round})`, ceilingSpread(s.baseUrl), s.pid));
    });
    await withServer('ours', oursArgs, oursEnv, async (s) => {
      add('create one ours', await measure(`ours leads.create: one workspace (round ${round})`, oursInto(s.baseUrl, keys.writes), s.pid));
      add('create spread ours', await measure(`ours leads.create: ${SPREAD} workspaces (round ${round})`, oursSpread(s.baseUrl), s.pid));
      add('upsert one ours', await measure(`ours leads.upsert: one workspace, half creates (round ${round})`, upsertInto(s.baseUrl, keys.writes), s.pid));
      add('getById ours', await measure(`ours leads.getById (round ${round})`, { url: getByIdUrl(s.baseUrl), headers: { Authorization: `Bearer ${keys.large}` } }, s.pid));
    });
    await withServer('getById ceiling', tsx('bench/servers/ceiling.ts'), env, async (s) => {
      add('getById ceiling', await measure(`ceiling: bare Express getById (round ${round})`, { url: `${s.baseUrl}/leads/${large.orgId}/${sample.leadId}` }, s.pid));
    });
  }

  let update: CannonResult | undefined;
  let list: CannonResult | undefined;
  const sizes = [
    { key: 'small', label: `${PLAN.small}-lead`, orgId: small.orgId, apiKey: keys.small, leads: PLAN.small },
    { key: 'large', label: `${PLAN.large}-lead`, orgId: large.orgId, apiKey: keys.large, leads: PLAN.large },
  ] as const;
  if (!upsertOnly) await withServer('ours', oursArgs, oursEnv, async (s) => {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const size of round % 2 === 1 ? sizes : [...sizes].reverse()) {
        add(`size ${size.key}`, await measure(`ours leads.create: into the ${size.label} workspace at ${SIZE_RATE} req/s (round ${round})`, { ...oursInto(s.baseUrl, size.apiKey), rate: SIZE_RATE }, s.pid));
        const deleted = await removeAllCreated(db, s.baseUrl, size.apiKey, size.orgId, size.leads);
        process.stderr.write(`    deleted the ${deleted} leads it made\n`);
      }
    }
    let n = 0;
    const updates = Array.from({ length: BODIES }, () => JSON.stringify({ json: {
      id: smallLeadIds[Math.floor(Math.random() * smallLeadIds.length)], notes: `${NAME_PREFIX} ${runTag}: update ${++n}`,
    } }));
    update = await measure(`ours leads.update: notes of random leads of the ${PLAN.small}-lead workspace`, {
      url: `${s.baseUrl}/api/v1/rpc/leads.update`, method: 'POST', headers: { ...json, Authorization: `Bearer ${keys.small}` }, bodies: updates,
    }, s.pid, 'p95');
    list = await measure(`ours REST list first page (pageSize=100), ${PLAN.large}-lead workspace`, {
      url: `${s.baseUrl}/api/v1/leads?pageSize=100`, headers: { Authorization: `Bearer ${keys.large}` },
    }, s.pid, 'p95');
  });
  await db.destroy();

  // Medians over the rounds.
  const med = (name: string, pick: (r: CannonResult) => number | undefined) => median((series.get(name) ?? []).map((r) => pick(r) ?? NaN));
  const rps = (name: string) => med(name, (r) => r.rps);
  const serverCpu = (name: string) => med(name, (r) => r.serverCpuUsPerRequest);
  const pgCpu = (name: string) => med(name, (r) => r.databaseCpuUsPerRequest);
  const x = (a: number, b: number) => (b > 0 && Number.isFinite(a) ? (a / b).toFixed(2) : '-');
  const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
  const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : '-');
  const seriesNames: [string, string][] = [
    ['create one ceiling', 'create ceiling, one workspace'], ['create one ours', 'ours create, one workspace'],
    ['upsert one ours', 'ours upsert, one workspace, half creates'],
    ['create spread ceiling', `create ceiling, ${SPREAD} workspaces`], ['create spread ours', `ours create, ${SPREAD} workspaces`],
    ['getById ceiling', 'ceiling getById'], ['getById ours', 'ours getById'],
    ['size small', `ours create, ${PLAN.small}-lead workspace, ${SIZE_RATE} req/s`], ['size large', `ours create, ${PLAN.large}-lead workspace, ${SIZE_RATE} req/s`],
  ];
  const medians = [
    '| case | req/s by round | median req/s | median p50 ms | median p99 ms | median server CPU µs/req | median PostgreSQL CPU µs/req |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...seriesNames.filter(([key]) => series.has(key)).map(([key, label]) => `| ${label} | ${(series.get(key) ?? []).map((r) => r.rps).join(', ')} | ${rps(key)} | ${ms(med(key, (r) => r.p50))} | ${ms(med(key, (r) => r.p99))} | ${serverCpu(key)} | ${pgCpu(key)} |`),
  ].join('\n');

  const createOne = rps('create one ours') / rps('create one ceiling');
  const createSpread = rps('create spread ours') / rps('create spread ceiling');
  const serverCpuRatio = serverCpu('create one ours') / serverCpu('create one ceiling');
  const pgCpuRatio = pgCpu('create one ours') / pgCpu('create one ceiling');
  const sizeRatio = pgCpu('size large') / pgCpu('size small');
  const getById = rps('getById ours') / rps('getById ceiling');
  const failed = rows.filter((r) => r.result.errors + r.result.non2xx > 0);
  const f = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : '-');
  const upsertRatio = rps('upsert one ours') / rps('create one ours');
  const upsertLine = `- leads.upsert (half creates, half updates) / leads.create req/s, one workspace: **${f(upsertRatio)}x** (target >= 0.8: ${verdict(upsertRatio >= 0.8)}); PostgreSQL CPU per call ${pgCpu('upsert one ours')} against ${pgCpu('create one ours')} µs`;
  const summary = upsertOnly ? upsertLine : [
    upsertLine,
    `- create, one workspace, ours / ceiling req/s: **${f(createOne)}x** (target >= 0.5: ${verdict(createOne >= 0.5)})`,
    `- create, ${SPREAD} workspaces, ours / ceiling req/s: **${f(createSpread)}x** (target >= 0.7: ${verdict(createSpread >= 0.7)})`,
    `- server CPU per create, one workspace, ours / ceiling: **${f(serverCpuRatio)}x** (${serverCpu('create one ours')} against ${serverCpu('create one ceiling')} µs; target <= 1.5: ${verdict(serverCpuRatio <= 1.5)}); ${SPREAD} workspaces: ${x(serverCpu('create spread ours'), serverCpu('create spread ceiling'))}x`,
    `- PostgreSQL CPU per create, one workspace, ours / ceiling: **${f(pgCpuRatio)}x** (${pgCpu('create one ours')} against ${pgCpu('create one ceiling')} µs; target <= 2: ${verdict(pgCpuRatio <= 2)}); ${SPREAD} workspaces: ${x(pgCpu('create spread ours'), pgCpu('create spread ceiling'))}x`,
    `- PostgreSQL CPU per create, ${PLAN.large}-lead / ${PLAN.small}-lead workspace: **${f(sizeRatio)}x** (${pgCpu('size large')} against ${pgCpu('size small')} µs at ${SIZE_RATE} req/s; target within 10%: ${verdict(Math.abs(sizeRatio - 1) <= 0.1)})`,
    `- getById, ours / bare Express ceiling req/s: **${f(getById)}x** (target >= 0.9: ${verdict(getById >= 0.9)})`,
    `- leads.update at ${CONNECTIONS} connections: ${update?.rps} req/s, p50 ${ms(update?.p50 ?? NaN)} ms, p95 ${ms(update?.p95 ?? NaN)} ms; server CPU ${update?.serverCpuUsPerRequest} µs, PostgreSQL CPU ${update?.databaseCpuUsPerRequest} µs per update`,
    `- REST list first page at ${CONNECTIONS} connections: ${list?.rps} req/s, p95 ${ms(list?.p95 ?? NaN)} ms`,
    ...(['size small', 'size large'].some((k) => rps(k) < SIZE_RATE * 0.9)
      ? [`- ours did not keep up with ${SIZE_RATE} creates a second in a workspace-size case: that comparison ran at full speed, not at one rate`] : []),
    ...(failed.length ? [`- **errors or non-2xx answers** in: ${failed.map((r) => r.name).join('; ')}; their figures do not measure what they say`] : []),
    ...(large.loaded ? [`- this run loaded the ${PLAN.large}-lead workspace (\`seed bulk\`): ${large.loaded.seconds} s`] : []),
    ...(small.loaded ? [`- this run loaded the ${PLAN.small}-lead workspace: ${small.loaded.seconds} s`] : []),
  ].join('\n');

  const body = [
    `${quick ? 'Quick run' : 'Full run'}: ${machineLine(pgVersion)}; ours from ${describeCheckout(serviceDir)}, compiled, with start:prod's node flags and NODE_ENV=production; the ceilings under tsx; DB_POOL_MAX=${BENCH_POOL_MAX} for every server; ${CONNECTIONS} connections; ${PLAN.warmup} s warm-up and ${PLAN.seconds} s counted per case; ${ROUNDS} rounds taking turns (each server alone); CPU per request over the counted run (PostgreSQL: ${postmasterPid ? `the database server's processes, postmaster ${postmasterPid}` : 'every postgres process on this machine'}).`,
    '',
    '### Medians',
    '',
    medians,
    '',
    summary,
    '',
    '### Every case',
    '',
    table(rows, { cpu: true }),
  ].join('\n');
  process.stdout.write(`${body}\n`);
  process.stderr.write(`done in ${Math.round((performance.now() - started) / 1000)} s\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
