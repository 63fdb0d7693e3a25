import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import { createDb, type Db } from '../src/db/knex';
import { migrateLatest } from '../src/db/migrator';
import * as orgsQueries from '../src/db/orgs';
import { issueApiKey } from '../src/auth/api-keys';
import { KNOWN_SCOPES } from '../src/auth/scopes';
import { createHttpClient, type HttpClient, type Outcome } from '../scripts/load/http-client';
import { serviceArgs, serviceEnv, startServer, type RunningServer } from './lib/processes';
import { percentile } from './lib/report';

/**
 * `npx tsx bench/citus-shard-move.ts [--seconds 40] [--move-at 8] [--clients 50] [--keep-database] [--without-idempotency-key]`
 *
 * On a fresh database of the local Citus cluster (../shared/citus/cluster.sh start): 50 clients
 * create leads in one workspace, each create under its own Idempotency-Key and retried with it
 * after a 5xx or a network error until a 200 acknowledges it, while `citus_move_shard_placement`
 * (logical replication) moves the workspace's shard group to the other worker. Then every
 * acknowledged create must be stored exactly once. Exits 1 on a lost, doubled, refused or never
 * acknowledged write.
 */

const ROOT = resolve(__dirname, '..');
const CLUSTER = process.env.CITUS_CLUSTER_SH ?? '/work/shared/citus/cluster.sh';
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
}
const SECONDS = option('seconds', 40);
const MOVE_AT = option('move-at', 8);
const CLIENTS = option('clients', 50);
const DRAIN_SECONDS = 30;
const KEEP = process.argv.includes('--keep-database');
/**
 * Sends no Idempotency-Key: a write answered 5xx is retried as a new create, so a write whose
 * commit was answered with an error shows as doubled. Measures the move by itself when keyed
 * creates fail (they did on Citus 13.2.2: the idempotency_keys upsert has now() in its ON CONFLICT
 * ... WHERE, which Citus refuses on a distributed table).
 */
const WITHOUT_KEY = process.argv.includes('--without-idempotency-key');

/** The compiled service, in a folder of this script's own (another benchmark may be building .tmp/bench-dist). */
function buildServiceInto(folder: string): string {
  const outDir = resolve(ROOT, folder);
  const built = spawnSync(resolve(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json', '--outDir', outDir], { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });
  const entry = resolve(outDir, 'src/index.js');
  if (!existsSync(entry)) throw new Error(`build produced no ${entry}:\n${built.stdout}${built.stderr}`);
  // Type errors still emit; say so, since someone else may be mid-edit.
  if (built.status !== 0) process.stderr.write(`note: tsc reported errors (it still emitted):\n${built.stdout.split('\n').slice(0, 5).join('\n')}\n`);
  return entry;
}

interface Write {
  n: number;
  name: string;
  key: string;
  attempts: number;
  leadId?: string;
  replayed?: boolean;
  ackAt?: number;
  refusedWith?: string;
}

interface Sample {
  startedAt: number;
  endedAt: number;
  latencyMs: number;
  label: string;
  status?: number;
  message?: string;
}

function labelOf(outcome: Outcome): string {
  if (outcome.kind === 'answer') return String(outcome.status);
  return outcome.kind === 'timeout' ? 'timeout' : `network:${outcome.error}`;
}

function retryable(outcome: Outcome): boolean {
  return outcome.kind !== 'answer' || outcome.status >= 500 || outcome.status === 409 || outcome.status === 429;
}

function errorMessageOf(outcome: Outcome): string | undefined {
  if (outcome.kind !== 'answer') return outcome.error;
  if (outcome.status === 200) return undefined;
  const body = outcome.body as { error?: { json?: { message?: string; data?: { code?: string } } } } | undefined;
  return `${body?.error?.json?.data?.code ?? '?'}: ${body?.error?.json?.message ?? JSON.stringify(outcome.body)?.slice(0, 200)}`;
}

async function runClients(http: HttpClient, tag: string, until: number, drainUntil: number) {
  const writes: Write[] = [];
  const samples: Sample[] = [];
  let sequence = 0;
  async function create(): Promise<void> {
    const n = (sequence += 1);
    const write: Write = { n, name: `Move ${tag} ${n}`, key: randomUUID(), attempts: 0 };
    writes.push(write);
    const body = JSON.stringify({ json: { name: write.name, phone: `+447400${String(n).padStart(6, '0')}` } });
    while (Date.now() < drainUntil) {
      write.attempts += 1;
      const outcome = await http.post('/api/v1/rpc/leads.create', body, WITHOUT_KEY ? {} : { 'Idempotency-Key': write.key });
      samples.push({
        startedAt: outcome.endedAt - outcome.latencyMs, endedAt: outcome.endedAt, latencyMs: outcome.latencyMs,
        label: labelOf(outcome), status: outcome.kind === 'answer' ? outcome.status : undefined, message: errorMessageOf(outcome),
      });
      if (outcome.kind === 'answer' && outcome.status === 200) {
        write.leadId = (outcome.body as { result: { data: { json: { id: string } } } }).result.data.json.id;
        write.replayed = outcome.headers['idempotent-replayed'] === 'true';
        write.ackAt = outcome.endedAt;
        return;
      }
      if (!retryable(outcome)) {
        write.refusedWith = `${labelOf(outcome)} ${errorMessageOf(outcome)}`;
        return;
      }
      const retryAfter = outcome.kind === 'answer' ? Number(outcome.headers['retry-after']) : Number.NaN;
      const base = Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter * 1000, 2000) : Math.min(1000, 100 * 2 ** (write.attempts - 1));
      await sleep(base * (0.5 + Math.random() / 2));
    }
  }
  const client = async () => {
    while (Date.now() < until) await create();
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  return { writes, samples };
}

interface Placement { table_name: string; shardid: string; nodename: string; nodeport: number }

/** Where each table's shard holding the workspace sits (organisations and every co-located table). */
async function shardGroupOf(admin: pg.Client, orgId: string): Promise<Placement[]> {
  const { rows } = await admin.query<Placement>(
    `select p.logicalrelid::text as table_name, s.shardid::text, s.nodename, s.nodeport
     from pg_dist_partition p
     cross join lateral (select get_shard_id_for_distribution_column(p.logicalrelid, $1::text) as shardid) g
     join citus_shards s on s.shardid = g.shardid
     where p.colocationid = (select colocationid from pg_dist_partition where logicalrelid = 'leads'::regclass)
     order by 1`,
    [orgId],
  );
  return rows;
}

function describePlacements(rows: Placement[]): string {
  const nodes = new Map<string, string[]>();
  for (const r of rows) nodes.set(`${r.nodename}:${r.nodeport}`, [...(nodes.get(`${r.nodename}:${r.nodeport}`) ?? []), r.table_name]);
  return [...nodes].map(([node, tables]) => `${tables.length} shards on ${node}`).join(', ');
}

interface Move { startedAt: number; endedAt: number; shardId: string; from: string; to: string; before: Placement[]; after: Placement[]; error?: string }

async function moveShardGroup(url: string, orgId: string): Promise<Move> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const shardId = (await admin.query<{ id: string }>(`select get_shard_id_for_distribution_column('leads', $1::text)::text as id`, [orgId])).rows[0]!.id;
    const from = (await admin.query<{ nodename: string; nodeport: number }>('select nodename, nodeport from citus_shards where shardid = $1', [shardId])).rows[0]!;
    const to = (await admin.query<{ nodename: string; nodeport: number }>(
      `select nodename, nodeport from pg_dist_node where noderole = 'primary' and isactive and shouldhaveshards and groupid > 0
         and not (nodename = $1 and nodeport = $2) order by nodeport limit 1`,
      [from.nodename, from.nodeport],
    )).rows[0]!;
    const before = await shardGroupOf(admin, orgId);
    log(`moving shard ${shardId} (leads) with its group from ${from.nodename}:${from.nodeport} to ${to.nodename}:${to.nodeport}`);
    const startedAt = Date.now();
    let error: string | undefined;
    try {
      await admin.query(
        `select citus_move_shard_placement($1, $2, $3, $4, $5, shard_transfer_mode => 'force_logical')`,
        [shardId, from.nodename, from.nodeport, to.nodename, to.nodeport],
      );
    } catch (err) {
      error = (err as Error).message;
    }
    const endedAt = Date.now();
    log(error ? `move failed after ${endedAt - startedAt} ms: ${error}` : `move done in ${endedAt - startedAt} ms`);
    return { startedAt, endedAt, shardId, from: `${from.nodename}:${from.nodeport}`, to: `${to.nodename}:${to.nodeport}`, before, after: await shardGroupOf(admin, orgId), error };
  } finally {
    await admin.end();
  }
}

/** Creates a workspace with a key able to create and read leads. */
async function workspaceWithKey(db: Db, name: string): Promise<{ orgId: string; key: string }> {
  const org = await orgsQueries.create(db, { name, tier: 'BUSINESS', features: ['DEVELOPER_API'], phoneRegion: 'GB' });
  const scopes = [...KNOWN_SCOPES].filter((s) => s.startsWith('leads.'));
  const issued = await issueApiKey(db, KNOWN_SCOPES, { orgId: org.id, name: 'shard move', scopes, expiresAt: null });
  return { orgId: org.id, key: issued.key };
}

/** Leads of the workspace per contact name (one single-shard statement: both tables filtered by org_id). */
async function leadsByName(db: Db, orgId: string): Promise<Map<string, string[]>> {
  const { rows } = await db.raw<{ rows: { name: string; ids: string[] }[] }>(
    `select c.name, array_agg(l.id order by l.id) as ids
     from leads l join contacts c on c.org_id = l.org_id and c.id = l.contact_id
     where l.org_id = ? and c.org_id = ?
     group by c.name`,
    [orgId, orgId],
  );
  return new Map(rows.map((r) => [r.name, r.ids]));
}

const round = (v: number) => (Number.isFinite(v) ? Math.round(v) : NaN);

function latencyLine(label: string, samples: Sample[], seconds: number): string {
  const times = samples.map((s) => s.latencyMs).sort((a, b) => a - b);
  const ok = samples.filter((s) => s.status === 200).length;
  return `| ${label} | ${samples.length} | ${seconds > 0 ? round(ok / seconds) : '-'} | ${round(percentile(times, 50))} | ${round(percentile(times, 99))} | ${round(times.at(-1) ?? NaN)} | ${samples.length - ok} |`;
}

/** Distinct error-level lines of the service's JSON log (pino: level 50 and up), with counts. */
function serviceErrors(logFile: string): { count: number; distinct: Map<string, number>; warnings: number } {
  const distinct = new Map<string, number>();
  let count = 0;
  let warnings = 0;
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    let entry: { level?: number; msg?: string; err?: { message?: string; code?: string }; error?: unknown };
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if ((entry.level ?? 0) === 40) warnings += 1;
    if ((entry.level ?? 0) < 50) continue;
    count += 1;
    const what = `${entry.msg ?? ''} | ${entry.err?.code ?? ''} ${entry.err?.message ?? JSON.stringify(entry.error ?? '')}`.slice(0, 400);
    distinct.set(what, (distinct.get(what) ?? 0) + 1);
  }
  return { count, distinct, warnings };
}

function log(message: string): void {
  process.stderr.write(`[shard-move ${new Date().toISOString().slice(11, 23)}] ${message}\n`);
}

async function main(): Promise<number> {
  const tag = `${Date.now().toString(36)}`;
  const dbName = `wsapi_shard_move_${tag}`;
  const url = execFileSync(CLUSTER, ['createdb', dbName], { encoding: 'utf8' }).trim().split('\n').at(-1)!;
  log(`database ${url}`);
  let db: Db | undefined;
  let server: RunningServer | undefined;
  let http: HttpClient | undefined;
  try {
    db = createDb({ url, poolMax: 2, onWarning: () => undefined });
    await migrateLatest(db);
    const busy = await workspaceWithKey(db, 'Busiest workspace');
    const small = await Promise.all([1, 2, 3].map((i) => workspaceWithKey(db!, `Small workspace ${i}`)));
    const versions = (await db.raw(`select version() as pg, (select extversion from pg_extension where extname = 'citus') as citus`)).rows[0];

    const entry = buildServiceInto('.tmp/citus-shard-move-dist');
    const logFile = `/tmp/citus-shard-move-${tag}.log`;
    server = await startServer('service', serviceArgs(entry), serviceEnv(url), logFile);
    log(`service ${server.baseUrl} (pid ${server.pid}, log ${logFile})`);
    http = createHttpClient(server.baseUrl, { sockets: CLIENTS + 4, timeoutMs: 30_000, authorization: `Bearer ${busy.key}` });

    // A few leads in the small workspaces, checked again after the move (their shards stay put unless they share the group).
    for (const [i, ws] of small.entries()) {
      const client = createHttpClient(server.baseUrl, { sockets: 2, timeoutMs: 10_000, authorization: `Bearer ${ws.key}` });
      for (let j = 0; j < 5; j++) {
        const outcome = await client.post('/api/v1/rpc/leads.create', JSON.stringify({ json: { name: `Small ${i} ${j}`, phone: `+447500${i}0000${j}` } }));
        if (outcome.kind !== 'answer' || outcome.status !== 200) throw new Error(`the service cannot create leads: ${labelOf(outcome)} ${errorMessageOf(outcome)}`);
      }
      client.close();
    }

    const startedAt = Date.now();
    const until = startedAt + SECONDS * 1000;
    log(`${CLIENTS} clients for ${SECONDS} s; the move starts at +${MOVE_AT} s`);
    const moving = sleep(MOVE_AT * 1000).then(() => moveShardGroup(url, busy.orgId));
    const [{ writes, samples }, move] = await Promise.all([runClients(http, tag, until, until + DRAIN_SECONDS * 1000), moving]);
    const endedAt = Date.now();
    log(`clients done after ${((endedAt - startedAt) / 1000).toFixed(1)} s; checking`);

    // Exactly once: every acknowledged name stored once (as the lead acknowledged), no name twice.
    const stored = await leadsByName(db, busy.orgId);
    const acknowledged = writes.filter((w) => w.leadId !== undefined);
    const lost = acknowledged.filter((w) => (stored.get(w.name)?.length ?? 0) === 0);
    const doubled = [...stored].filter(([, ids]) => ids.length > 1);
    const mismatched = acknowledged.filter((w) => stored.get(w.name)?.length === 1 && stored.get(w.name)![0] !== w.leadId);
    const unacknowledged = writes.filter((w) => w.leadId === undefined && w.refusedWith === undefined);
    const refused = writes.filter((w) => w.refusedWith !== undefined);
    const sent = new Set(writes.map((w) => w.name));
    const orphans = [...stored.keys()].filter((name) => !sent.has(name));
    const storedLeads = [...stored.values()].reduce((n, ids) => n + ids.length, 0);
    const contacts = (await db.raw(`select count(*)::int as n, count(distinct name)::int as names from contacts where org_id = ?`, [busy.orgId])).rows[0];
    const counters = (await db.raw(`select coalesce(sum(n), 0)::int as n from lead_counts where org_id = ?`, [busy.orgId])).rows[0].n as number;
    const events = (await db.raw(`select count(*)::int as n, count(distinct seq)::int as seqs, min(seq)::int as lo, max(seq)::int as hi from events where org_id = ?`, [busy.orgId])).rows[0];
    const smallCounts = await Promise.all(small.map(async (ws) => (await db!.raw(`select count(*)::int as n from leads where org_id = ?`, [ws.orgId])).rows[0].n as number));
    const listed = await http.get('/api/v1/leads?pageSize=1');
    const listedTotal = listed.kind === 'answer' ? (listed.body as { pagination?: { total?: number } }).pagination?.total : undefined;

    // What the clients saw, by when each request started relative to the move.
    const moveStart = move.startedAt;
    const moveEnd = move.endedAt;
    const phase = (s: Sample) => (s.startedAt < moveStart ? 'before' : s.startedAt <= moveEnd ? 'during' : 'after');
    const beforeS = samples.filter((s) => phase(s) === 'before');
    const duringS = samples.filter((s) => phase(s) === 'during');
    const afterS = samples.filter((s) => phase(s) === 'after' && s.startedAt < until);
    const drainS = samples.filter((s) => s.startedAt >= until);
    const failures = samples.filter((s) => s.status !== 200);
    const fiveXx = samples.filter((s) => s.status !== undefined && s.status >= 500);
    const network = samples.filter((s) => s.status === undefined);
    const rel = (t: number) => `${t - moveStart >= 0 ? '+' : ''}${((t - moveStart) / 1000).toFixed(2)} s`;
    const byLabel = new Map<string, { n: number; first: number; last: number }>();
    for (const f of failures) {
      const what = `${f.label} ${f.message ?? ''}`;
      const seen = byLabel.get(what) ?? { n: 0, first: f.startedAt, last: f.endedAt };
      byLabel.set(what, { n: seen.n + 1, first: Math.min(seen.first, f.startedAt), last: Math.max(seen.last, f.endedAt) });
    }
    const errors = serviceErrors(logFile);
    // The longest time without an acknowledgement: how long writes stood still (the move's final catch-up blocks them).
    const acks = acknowledged.map((w) => w.ackAt!).sort((a, b) => a - b);
    let gap = { ms: 0, from: startedAt };
    for (let i = 1; i < acks.length; i++) if (acks[i]! - acks[i - 1]! > gap.ms && acks[i]! <= until) gap = { ms: acks[i]! - acks[i - 1]!, from: acks[i - 1]! };

    const out: string[] = [];
    out.push(`### Shard-group move under write load (${new Date(startedAt).toISOString()})`);
    out.push('');
    out.push(`- ${versions.pg.split(' on ')[0]}, Citus ${versions.citus}; ${WITHOUT_KEY ? 'NO Idempotency-Key (a 5xx is retried as a new create); ' : 'each create under its own Idempotency-Key; '}${CLIENTS} clients creating leads for ${SECONDS} s (+ up to ${DRAIN_SECONDS} s to finish retries); service pool ${serviceEnv(url).DB_POOL_MAX}, acquire timeout 3 s (default)`);
    out.push(`- move: shard ${move.shardId} (leads) and its co-located group, ${move.from} -> ${move.to}, \`citus_move_shard_placement(..., shard_transfer_mode => 'force_logical')\` started at +${((moveStart - startedAt) / 1000).toFixed(1)} s, took **${((moveEnd - moveStart) / 1000).toFixed(2)} s**${move.error ? `, FAILED: ${move.error}` : ''}`);
    out.push(`- longest time without an acknowledgement: ${gap.ms} ms, from ${rel(gap.from)} relative to the move's start`);
    out.push(`- shard group before: ${describePlacements(move.before)}; after: ${describePlacements(move.after)}`);
    out.push(`- writes sent ${writes.length}, acknowledged ${acknowledged.length} (${acknowledged.filter((w) => w.replayed).length} by a replayed answer), retries ${writes.reduce((n, w) => n + w.attempts - 1, 0)} (writes retried at least once: ${writes.filter((w) => w.attempts > 1).length}), never acknowledged ${unacknowledged.length}, refused (4xx) ${refused.length}`);
    out.push(`- **lost ${lost.length}, doubled ${doubled.length}**, acknowledged id mismatched ${mismatched.length}, leads stored without a write sent ${orphans.length}; leads stored ${storedLeads}, contacts ${contacts.n} (${contacts.names} names), lead_counts sum ${counters}, list total ${listedTotal ?? `? (${labelOf(listed)})`}; events ${events.n} (distinct seq ${events.seqs}, ${events.lo}..${events.hi}); small workspaces' leads ${smallCounts.join('/')} (5 each expected)`);
    out.push(`- 5xx answers: ${fiveXx.length}${fiveXx.length ? `, first started ${rel(Math.min(...fiveXx.map((s) => s.startedAt)))} and last answered ${rel(Math.max(...fiveXx.map((s) => s.endedAt)))} relative to the move's start (the move ended at ${rel(moveEnd)})` : ''}; network errors/timeouts: ${network.length}${network.length ? ` (${rel(Math.min(...network.map((s) => s.startedAt)))} .. ${rel(Math.max(...network.map((s) => s.endedAt)))})` : ''}; other non-200: ${failures.length - fiveXx.length - network.length}`);
    for (const [what, g] of [...byLabel].sort((a, b) => b[1].n - a[1].n).slice(0, 8)) out.push(`  - ${g.n} x ${what} (${rel(g.first)} .. ${rel(g.last)})`);
    out.push(`- service log: ${errors.count} error lines, ${errors.warnings} warnings${errors.count ? ':' : ''}`);
    for (const [what, n] of [...errors.distinct].slice(0, 8)) out.push(`  - ${n} x ${what}`);
    out.push('');
    out.push('| requests started | requests | acks/s | p50 ms | p99 ms | max ms | non-200 |');
    out.push('|---|---:|---:|---:|---:|---:|---:|');
    out.push(latencyLine('before the move', beforeS, (moveStart - startedAt) / 1000));
    out.push(latencyLine('during the move', duringS, (moveEnd - moveStart) / 1000));
    out.push(latencyLine('after the move', afterS, (until - moveEnd) / 1000));
    if (drainS.length) out.push(latencyLine('retries after the run', drainS, 0));
    if (lost.length) out.push(`\nlost: ${lost.slice(0, 10).map((w) => `${w.name} (key ${w.key}, ${w.attempts} attempts)`).join('; ')}`);
    if (doubled.length) out.push(`\ndoubled: ${doubled.slice(0, 10).map(([name, ids]) => `${name}: ${ids.join(', ')}`).join('; ')}`);
    if (refused.length) out.push(`\nrefused: ${refused.slice(0, 5).map((w) => `${w.name}: ${w.refusedWith}`).join('; ')}`);
    console.log(out.join('\n'));
    // A write never acknowledged after the drain means the service did not recover: a failure too.
    const failed = lost.length + doubled.length + mismatched.length + refused.length + unacknowledged.length + (move.error ? 1 : 0) + (acknowledged.length === 0 ? 1 : 0);
    return failed === 0 ? 0 : 1;
  } finally {
    http?.close();
    await server?.stop();
    await db?.destroy();
    if (KEEP) log(`kept database ${dbName}: ${CLUSTER} dropdb ${dbName}`);
    else execFileSync(CLUSTER, ['dropdb', dbName], { stdio: 'ignore' });
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(`shard move failed to run: ${(err as Error).stack ?? String(err)}`);
    process.exitCode = 2;
  },
);
