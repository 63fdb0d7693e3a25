import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createDb, type Db } from '../src/db/knex';
import { migrateLatest } from '../src/db/migrator';
import * as orgsQueries from '../src/db/orgs';
import { issueApiKey } from '../src/auth/api-keys';
import { KNOWN_SCOPES } from '../src/auth/scopes';
import { createFaultCluster, findClusterScript, type FaultCluster } from './faults/cluster';
import { startLoadServer, type LoadServer } from './load/server';
import { createHttpClient, type HttpClient, type Outcome } from './load/http-client';

/**
 * `npm run test:faults`: the service, built and started as in production with its default
 * settings, on a Citus cluster of its own (a coordinator and two workers, ports 5470-5472), under
 * a steady load on workspaces of both workers, while (a) one worker hangs for 40 s (SIGSTOP),
 * (b) it is stopped for 15 s, (c) the coordinator is restarted. Prints the figures and checks
 * issue 40's promises; exits 1 when one fails. About 3 minutes.
 */

const PORT = Number(process.env.FAULTS_CITUS_PORT ?? 5470);
const DIR = process.env.FAULTS_CITUS_DIR ?? '/tmp/wsapi-faults-citus';
const DATABASE = 'wsapi_faults';
const WORKSPACES_PER_WORKER = 3;
const CLIENTS_PER_WORKSPACE = 3;
const THINK_MS = 50;
/** A client told 503 waits this long before its next call (less than Retry-After: a steady load). */
const BACKOFF_MS = 200;
const HIT_WORKER = 1;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line: string) => process.stdout.write(`${line}\n`);

type Side = 'hit' | 'healthy';
interface Workspace { orgId: string; key: string; side: Side; leadIds: string[] }
interface Call { side: Side; op: string; status: string; startedAt: number; endedAt: number; latencyMs: number; retryAfter: boolean }
interface Create { key: string; side: Side; outcome: 'acknowledged' | 'failed' | 'unknown'; leadId?: string; body: string; http: HttpClient }
interface Probe { at: number; status: number | string; body: unknown }

async function main(): Promise<number> {
  const cluster = createFaultCluster(findClusterScript(), PORT, DIR);
  log(`== fault test: ${cluster.start()}`);
  let server: LoadServer | undefined;
  let db: Db | undefined;
  const clients: HttpClient[] = [];
  try {
    const url = cluster.createDatabase(DATABASE);
    db = createDb({ url, poolMax: 2, onWarning: () => undefined });
    await migrateLatest(db);
    const workspaces = await createWorkspaces(db, cluster);
    server = await startLoadServer({ DATABASE_URL: url });
    log(`service ${server.baseUrl} (production build, default settings; log: ${server.logFile})`);
    for (const ws of workspaces) {
      const http = createHttpClient(server.baseUrl, { sockets: CLIENTS_PER_WORKSPACE + 1, timeoutMs: 30_000, authorization: `Bearer ${ws.key}` });
      clients.push(http);
      for (let i = 0; i < 5; i += 1) ws.leadIds.push((await create(http, ws, [])).leadId!);
    }
    const calls: Call[] = [];
    const creates: Create[] = [];
    const probes: Probe[] = [];
    let running = true;
    const load = Promise.all(workspaces.flatMap((ws, i) => Array.from({ length: CLIENTS_PER_WORKSPACE }, () => client(clients[i]!, ws, calls, creates, () => running))));
    const probing = probeReadiness(server.baseUrl, probes, () => running);

    await sleep(8000);
    const faults: FaultResult[] = [];
    faults.push(await fault('a', 'worker hung (SIGSTOP) for 40 s', 40_000, () => cluster.hang(HIT_WORKER), async () => cluster.resume()));
    await sleep(15_000);
    faults.push(await fault('b', 'worker stopped for 15 s', 15_000, () => cluster.stopNode(HIT_WORKER), () => cluster.startNode(HIT_WORKER)));
    await sleep(15_000);
    faults.push(await fault('c', 'coordinator restarted (down 10 s)', 10_000, () => cluster.stopNode(0), () => cluster.startNode(0)));
    await sleep(15_000);
    running = false;
    await Promise.all([load, probing]);

    const failures: string[] = [];
    for (const f of faults) failures.push(...report(f, calls, probes, cluster));
    failures.push(...(await accountWrites(db, creates)));
    failures.push(...(await retryFailedCreates(db, creates)));
    failures.push(...reportLog(server.logFile, cluster));
    if (failures.length > 0) {
      log(`\nFAILED:\n${failures.map((f) => `- ${f}`).join('\n')}`);
      return 1;
    }
    log('\nevery check held');
    return 0;
  } finally {
    for (const http of clients) http.close();
    await server?.stop();
    await db?.destroy();
    cluster.heal();
    cluster.dropDatabase(DATABASE);
    cluster.stopAll();
  }
}

/** Workspaces until each worker holds WORKSPACES_PER_WORKER, each with an every-scope key. */
async function createWorkspaces(db: Db, cluster: FaultCluster): Promise<Workspace[]> {
  const chosen: Workspace[] = [];
  const count = { hit: 0, healthy: 0 };
  for (let i = 0; count.hit < WORKSPACES_PER_WORKER || count.healthy < WORKSPACES_PER_WORKER; i += 1) {
    if (i > 200) throw new Error('could not place workspaces on both workers');
    const org = await orgsQueries.create(db, { name: `Faults ${i}`, tier: 'BUSINESS', features: ['DEVELOPER_API'], phoneRegion: 'GB' });
    const { rows } = await db.raw<{ rows: { node: string }[] }>(
      `select n.nodename || ':' || n.nodeport as node from pg_dist_placement p join pg_dist_node n using (groupid)
       where p.shardid = get_shard_id_for_distribution_column('organisations', ?::text)`, [org.id]);
    const side: Side = rows[0]!.node === cluster.address(HIT_WORKER) ? 'hit' : 'healthy';
    if (count[side] >= WORKSPACES_PER_WORKER) continue;
    count[side] += 1;
    const issued = await issueApiKey(db, KNOWN_SCOPES, { orgId: org.id, name: 'faults', scopes: [...KNOWN_SCOPES], expiresAt: null });
    chosen.push({ orgId: org.id, key: issued.key, side, leadIds: [] });
  }
  log(`workspaces: ${WORKSPACES_PER_WORKER} on ${cluster.address(HIT_WORKER)} (the one that fails), ${WORKSPACES_PER_WORKER} on the other worker; ${CLIENTS_PER_WORKSPACE} clients each`);
  return chosen;
}

function label(outcome: Outcome): string {
  return outcome.kind === 'answer' ? String(outcome.status) : outcome.kind;
}

/** A create under its own Idempotency-Key, its key also stored as the lead's source so the end can find it. */
async function create(http: HttpClient, ws: Workspace, creates: Create[], calls?: Call[]): Promise<Create> {
  const key = randomUUID();
  const body = JSON.stringify({ json: { name: 'Fault lead', phone: '+442079460123', source: `faults:${key}` } });
  const startedAt = Date.now();
  const outcome = await http.post('/api/v1/rpc/leads.create', body, { 'Idempotency-Key': key });
  calls?.push(callOf(ws.side, 'create', outcome, startedAt));
  const result: Create = { key, side: ws.side, outcome: 'failed', body, http };
  if (outcome.kind === 'answer' && outcome.status === 200) {
    result.outcome = 'acknowledged';
    result.leadId = (outcome.body as { result: { data: { json: { id: string } } } }).result.data.json.id;
  } else if (outcome.kind !== 'answer') result.outcome = 'unknown';
  creates.push(result);
  return result;
}

function callOf(side: Side, op: string, outcome: Outcome, startedAt: number): Call {
  const retryAfter = outcome.kind === 'answer' && typeof outcome.headers['retry-after'] === 'string';
  return { side, op, status: label(outcome), startedAt, endedAt: outcome.endedAt, latencyMs: outcome.latencyMs, retryAfter };
}

/** A steady mix: 40% creates, 40% reads of a lead, 20% first pages of the REST list. */
async function client(http: HttpClient, ws: Workspace, calls: Call[], creates: Create[], running: () => boolean): Promise<void> {
  while (running()) {
    const pick = Math.random();
    let status: string;
    if (pick < 0.4) {
      const made = await create(http, ws, creates, calls);
      if (made.leadId) ws.leadIds.push(made.leadId);
      status = calls.at(-1)!.status;
    } else {
      const startedAt = Date.now();
      const id = ws.leadIds[Math.floor(Math.random() * ws.leadIds.length)]!;
      const [op, outcome] = pick < 0.8
        ? ['getById', await http.get(`/api/v1/rpc/leads.getById?input=${encodeURIComponent(JSON.stringify({ json: { id } }))}`)] as const
        : ['list', await http.get('/api/v1/leads?pageSize=20')] as const;
      calls.push(callOf(ws.side, op, outcome, startedAt));
      status = label(outcome);
    }
    await sleep(status === '503' ? BACKOFF_MS : THINK_MS);
  }
}

async function probeReadiness(baseUrl: string, probes: Probe[], running: () => boolean): Promise<void> {
  const http = createHttpClient(baseUrl, { sockets: 1, timeoutMs: 5000 });
  while (running()) {
    const outcome = await http.get('/readyz');
    probes.push({ at: Date.now(), status: outcome.kind === 'answer' ? outcome.status : outcome.kind, body: outcome.kind === 'answer' ? outcome.body : undefined });
    await sleep(500);
  }
  http.close();
}

interface FaultResult { id: string; title: string; startedAt: number; backAt: number; coordinator: boolean }

async function fault(id: string, title: string, downMs: number, inject: () => unknown, heal: () => Promise<unknown>): Promise<FaultResult> {
  log(`(${id}) ${title}`);
  const startedAt = Date.now();
  await inject();
  await sleep(Math.max(0, downMs - (Date.now() - startedAt)));
  await heal();
  return { id, title, startedAt, backAt: Date.now(), coordinator: id === 'c' };
}

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const ms = (n: number) => (Number.isNaN(n) ? '-' : `${Math.round(n)} ms`);

/** The figures of one fault, and which promises it broke. */
function report(f: FaultResult, calls: Call[], probes: Probe[], cluster: FaultCluster): string[] {
  const failures: string[] = [];
  const during = calls.filter((c) => c.startedAt >= f.startedAt && c.startedAt < f.backAt);
  const hitSide: Side[] = f.coordinator ? ['hit', 'healthy'] : ['hit'];
  const hit = during.filter((c) => hitSide.includes(c.side));
  const hitFailed = hit.filter((c) => c.status !== '200');
  const hitP99 = percentile(hit.map((c) => c.latencyMs), 99);
  const slowest = [...hit].sort((a, b) => b.latencyMs - a.latencyMs)[0];
  const badFailures = hitFailed.filter((c) => c.status !== '503' || !c.retryAfter);
  const firstOk = calls.filter((c) => hitSide.includes(c.side) && c.status === '200' && c.startedAt >= f.backAt).sort((a, b) => a.endedAt - b.endedAt)[0];
  const firstOkAfter = firstOk ? firstOk.endedAt - f.backAt : Number.NaN;
  const readiness = probes.filter((p) => p.at >= f.startedAt && p.at < f.backAt + 2000);
  const notReady = readiness.filter((p) => p.status !== 200);
  const degradedSeen = readiness.some((p) => JSON.stringify(p.body ?? '').includes(cluster.address(HIT_WORKER)));
  log(`\n(${f.id}) ${f.title}`);
  log(`  hit workspaces: ${hit.length} requests during the fault, ${hitFailed.length} answered ${[...new Set(hitFailed.map((c) => c.status))].join('/') || '-'}; p50 ${ms(percentile(hit.map((c) => c.latencyMs), 50))}, p99 ${ms(hitP99)}, max ${ms(slowest?.latencyMs ?? Number.NaN)} (${slowest ? `${slowest.op} ${slowest.status}` : '-'}); first 200 ${ms(firstOkAfter)} after the node's return`);
  log(`  /readyz: ${readiness.length - notReady.length} of ${readiness.length} probes 200${degradedSeen ? `, ${cluster.address(HIT_WORKER)} named degraded` : ''}`);
  if (badFailures.length > 0) failures.push(`(${f.id}) ${badFailures.length} hit requests failed other than 503 with Retry-After (${[...new Set(badFailures.map((c) => c.status))].join(', ')})`);
  if (!(firstOkAfter <= 2000)) failures.push(`(${f.id}) first 200 for a hit workspace ${ms(firstOkAfter)} after its node's return (at most 2 s)`);
  if (f.coordinator) return failures;

  const healthy = during.filter((c) => c.side === 'healthy');
  const healthyBad = healthy.filter((c) => c.status !== '200');
  const seconds = (f.backAt - f.startedAt) / 1000;
  const after = calls.filter((c) => c.side === 'healthy' && c.status === '200' && c.startedAt >= f.backAt + 3000 && c.startedAt < f.backAt + 13_000);
  const duringRate = healthy.filter((c) => c.status === '200').length / seconds;
  const afterRate = after.length / 10;
  const ratio = duringRate / afterRate;
  log(`  healthy workspaces: ${healthy.length} requests, ${healthyBad.length} not 200; ${duringRate.toFixed(1)}/s during, ${afterRate.toFixed(1)}/s after recovery: ${ratio.toFixed(2)}x; p99 ${ms(percentile(healthy.map((c) => c.latencyMs), 99))}`);
  if (healthyBad.length > 0) failures.push(`(${f.id}) ${healthyBad.length} requests of healthy workspaces were not 200 (${[...new Set(healthyBad.map((c) => c.status))].join(', ')})`);
  if (!(ratio >= 0.9)) failures.push(`(${f.id}) healthy throughput ${ratio.toFixed(2)}x of after recovery (at least 0.9x)`);
  if (!(hitP99 <= 3000)) failures.push(`(${f.id}) hit requests' p99 ${ms(hitP99)} (at most 3 s)`);
  if (notReady.length > 0) failures.push(`(${f.id}) /readyz answered ${notReady.map((p) => p.status).join(', ')} during the fault`);
  return failures;
}

/** Every acknowledged create reads back; every create answers 200 or a retryable 503 within 30 s. */
async function accountWrites(db: Db, creates: Create[]): Promise<string[]> {
  const byKey = await leadsByKey(db);
  const acknowledged = creates.filter((c) => c.outcome === 'acknowledged');
  const lost = acknowledged.filter((c) => byKey.get(c.key)?.[0] !== c.leadId);
  const failed = creates.filter((c) => c.outcome === 'failed');
  const committedAnyway = failed.filter((c) => byKey.has(c.key));
  const unknown = creates.filter((c) => c.outcome === 'unknown');
  log(`\nwrites: ${acknowledged.length} acknowledged creates, ${lost.length} of them missing; ${failed.length} failed, ${committedAnyway.length} of them committed; ${unknown.length} without an answer`);
  const failures: string[] = [];
  if (lost.length > 0) failures.push(`${lost.length} acknowledged creates did not read back`);
  if (unknown.length > 0) failures.push(`${unknown.length} creates got no answer within 30 s`);
  return failures;
}

/**
 * What a client does with a 503 on a write: retries it under the same Idempotency-Key. A create
 * whose COMMIT was in flight when its node hung cannot know its outcome (the commit completes when
 * the node resumes, after the answer): it is answered 503 like any other, and its retry must replay
 * the committed answer. So every failed create, retried once the cluster is whole, answers 200,
 * with the lead that committed if one did (replayed), and every key ends with exactly one lead.
 */
async function retryFailedCreates(db: Db, creates: Create[]): Promise<string[]> {
  const committedBefore = await leadsByKey(db);
  const failed = creates.filter((c) => c.outcome === 'failed');
  const problems: string[] = [];
  let answered = 0;
  let replayed = 0;
  for (let i = 0; i < failed.length; i += 20) {
    await Promise.all(failed.slice(i, i + 20).map(async (c) => {
      const outcome = await c.http.post('/api/v1/rpc/leads.create', c.body, { 'Idempotency-Key': c.key });
      if (outcome.kind !== 'answer' || outcome.status !== 200) {
        problems.push(`a retried create answered ${label(outcome)}`);
        return;
      }
      answered += 1;
      const leadId = (outcome.body as { result: { data: { json: { id: string } } } }).result.data.json.id;
      const committed = committedBefore.get(c.key)?.[0];
      if (committed !== undefined) {
        if (outcome.headers['idempotent-replayed'] === 'true' && leadId === committed) replayed += 1;
        else problems.push(`a retried create that had committed was not replayed (${leadId}, committed ${committed})`);
      }
    }));
  }
  const after = await leadsByKey(db);
  const doubled = failed.filter((c) => (after.get(c.key)?.length ?? 0) !== 1);
  log(`retried the ${failed.length} failed creates under their Idempotency-Key: ${answered} answered 200, ${replayed} of them replaying the lead that had committed; ${doubled.length} keys without exactly one lead`);
  if (doubled.length > 0) problems.push(`${doubled.length} failed creates did not end with exactly one lead after their retry`);
  return [...new Set(problems)];
}

/** The fault run's leads by the create's Idempotency-Key (kept in the lead's source). */
async function leadsByKey(db: Db): Promise<Map<string, string[]>> {
  const { rows } = await db.raw<{ rows: { source: string; id: string }[] }>("select source, id from leads where source like 'faults:%'");
  const byKey = new Map<string, string[]>();
  for (const row of rows) {
    const key = row.source.slice('faults:'.length);
    byKey.set(key, [...(byKey.get(key) ?? []), row.id]);
  }
  return byKey;
}

/** What the operator saw in the log: the node state changes, and nothing at error level. */
function reportLog(logFile: string, cluster: FaultCluster): string[] {
  const lines = readFileSync(logFile, 'utf8').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: number; msg: string; status?: number; cause?: unknown; path?: string; err?: { code?: string; message?: string } });
  const stateChanges = lines.filter((l) => l.level === 40 && /^database node /.test(l.msg));
  const errors = lines.filter((l) => l.level >= 50);
  const retryable = lines.filter((l) => l.level === 40 && l.status === 503 && l.cause !== undefined);
  log(`log: ${stateChanges.length} node state lines (${stateChanges.map((l) => l.msg.split(':')[0]).join('; ')}), ${retryable.length} retryable 503s at warn with their cause, ${errors.length} at error level`);
  const failures: string[] = [];
  if (!stateChanges.some((l) => l.msg.includes(cluster.address(HIT_WORKER)))) failures.push(`no warn line named ${cluster.address(HIT_WORKER)}`);
  // The cause's code and message say which failure the error classes do not know yet.
  if (errors.length > 0) failures.push(`${errors.length} error-level lines, the first: ${errors[0]!.msg} (${errors[0]!.path ?? '-'}: ${errors[0]!.err?.code ?? 'no code'} ${errors[0]!.err?.message ?? ''})`);
  return failures;
}

main().then((code) => process.exit(code), (err: unknown) => {
  console.error(err);
  process.exit(1);
});
