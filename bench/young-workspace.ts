import { resolve } from 'node:path';
import type { Db } from '../src/db/knex';
import { openBenchDatabase, ensureWorkspace, createBenchKey, DEFAULT_BENCH_URL, postgresVersion } from './lib/dataset';
import { startServer, buildService, runCannon, serviceEnv, serviceArgs, postmasterOf, BENCH_POOL_MAX, type RunningServer } from './lib/processes';
import { machineLine } from './lib/report';
import type { CannonResult } from './lib/cannon';

// `npm run bench:young [-- --rounds 3 --seconds 10]`: whether a create's database cost stays flat
// while a young workspace fills (what an import into an empty workspace is), on the database at
// BENCH_DATABASE_URL (default wsapi_bench on this machine's PostgreSQL, which runs with
// autovacuum off; `scripts/default-postgres.sh start` starts one with default settings and
// prints its URL). A new workspace with 1,000 leads (seed bulk, which ends with VACUUM ANALYZE),
// then rounds of 50 connections creating leads in it as fast as they are answered: ours
// (leads.create) and the bare create ceiling (bench/servers/create-ceiling.ts: contact, lead and
// one event in one transaction, the same indexes) in turns, each server started once and kept
// running, so nothing is reset between rounds but what the database does by itself. After each
// round: dead and live rows of the tables a create writes (pg_stat_user_tables), and with
// pg_stat_statements loaded (DEFAULT_PG_STATEMENTS=1 on the private cluster), the round's costliest
// statements. Markdown on stdout, progress on stderr. The rows it creates stay (a young workspace
// per run, named by the run). BENCH_SERVICE_DIR names another checkout whose service is measured
// (an older commit in a git worktree, as bench/writes.ts says).
const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
};
const ROUNDS = arg('rounds', 3);
const SECONDS = arg('seconds', 10);
/** Seconds of warm-up before each round; the first round's is longer (a server's first requests compile its code). */
const WARMUP = 1;
const FIRST_WARMUP = 3;
const CONNECTIONS = 50;
const START_LEADS = 1000;
const BODIES = 5000;
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
const serviceDir = resolve(process.env.BENCH_SERVICE_DIR ?? resolve(__dirname, '..'));
const runTag = Date.now() % 1_000_000;
/** The tables one create writes (ours), and the ceiling's. */
const TABLES = ['contacts', 'leads', 'lead_json', 'lead_counts', 'events', 'webhook_deliveries', 'ceiling_contacts', 'ceiling_leads', 'ceiling_events'];
const json = { 'content-type': 'application/json' };

let sent = 0;
function newLeadInput(): { name: string; phone: string } {
  sent += 1;
  return { name: `Bench young ${runTag} ${sent}`, phone: `+4475${String(sent % 100_000_000).padStart(8, '0')}` };
}
const bodies = (wrap: boolean) => Array.from({ length: BODIES }, () => JSON.stringify(wrap ? { json: newLeadInput() } : newLeadInput()));

/** Dead and live rows of each table, as the statistics collector last heard (flushed about every second). */
async function tableRows(db: Db): Promise<Map<string, { dead: number; live: number; vacuums: number }>> {
  await new Promise((done) => setTimeout(done, 1500));
  const { rows } = await db.raw(
    `select relname, n_dead_tup::int as dead, n_live_tup::int as live, (vacuum_count + autovacuum_count)::int as vacuums
     from pg_stat_user_tables where relname = any(?)`,
    [TABLES],
  );
  return new Map(rows.map((r: { relname: string; dead: number; live: number; vacuums: number }) => [r.relname, r]));
}

/** Whether pg_stat_statements is loaded and its view can be made. */
async function statementsReady(db: Db): Promise<boolean> {
  const { rows } = await db.raw("select setting from pg_settings where name = 'shared_preload_libraries'");
  if (!String(rows[0]?.setting ?? '').includes('pg_stat_statements')) return false;
  await db.raw('create extension if not exists pg_stat_statements');
  return true;
}

/** The costliest statements since the last reset: mean ms and calls. */
async function topStatements(db: Db): Promise<string[]> {
  const { rows } = await db.raw(
    `select calls::int, round((total_exec_time / calls)::numeric, 3) as mean_ms, round(total_exec_time::numeric) as total_ms,
       shared_blks_hit::bigint / greatest(calls, 1) as blks_per_call, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) as query
     from pg_stat_statements where calls > 0 order by total_exec_time desc limit 8`,
  );
  return rows.map((r: { calls: number; mean_ms: string; total_ms: string; blks_per_call: string; query: string }) =>
    `| ${r.total_ms} | ${r.calls} | ${r.mean_ms} | ${r.blks_per_call} | \`${r.query.replace(/\|/g, '\\|')}\` |`);
}

async function main(): Promise<void> {
  const db = await openBenchDatabase(url);
  const pgVersion = await postgresVersion(db);
  const autovacuum = (await db.raw('show autovacuum')).rows[0].autovacuum as string;
  const postmasterPid = postmasterOf(Number((await db.raw('select pg_backend_pid() as pid')).rows[0].pid));
  const statements = await statementsReady(db);
  const { orgId } = await ensureWorkspace(db, `bench young ${runTag}`, START_LEADS);
  const key = await createBenchKey(db, orgId);
  const entry = buildService(serviceDir);
  const env = { DATABASE_URL: url, DB_POOL_MAX: BENCH_POOL_MAX };
  const servers: RunningServer[] = [];
  const out: string[] = [];
  const rounds: { round: number; name: string; result: CannonResult }[] = [];
  const statementTables: string[] = [];
  const rowLines: string[] = [];
  try {
    const ours = await startServer('ours', serviceArgs(entry, serviceDir), serviceEnv(url));
    servers.push(ours);
    const ceiling = await startServer('create ceiling', ['--import', 'tsx', 'bench/servers/create-ceiling.ts'], env);
    servers.push(ceiling);
    const before = await tableRows(db);
    rowLines.push(`| start | ${TABLES.map((t) => `${before.get(t)?.dead ?? '-'}`).join(' | ')} |`);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [name, server, job] of [
        ['ours', ours, { url: `${ours.baseUrl}/api/v1/rpc/leads.create`, headers: { ...json, Authorization: `Bearer ${key}` }, bodies: bodies(true) }],
        ['bare create', ceiling, { url: `${ceiling.baseUrl}/leads/${orgId}`, headers: json, bodies: bodies(false) }],
      ] as const) {
        process.stderr.write(`round ${round}: ${name}\n`);
        if (statements) await db.raw('select pg_stat_statements_reset()');
        const result = await runCannon({ ...job, method: 'POST', connections: CONNECTIONS, warmupSeconds: round === 1 ? FIRST_WARMUP : WARMUP, seconds: SECONDS }, server.pid, postmasterPid);
        if (result.errors + result.non2xx > 0) process.stderr.write(`  ${result.errors} errors, ${result.non2xx} non-2xx answers\n`);
        rounds.push({ round, name, result });
        if (statements) statementTables.push(`Round ${round}, ${name}:`, '', '| total ms | calls | mean ms | buffers/call | statement |', '|---:|---:|---:|---:|---|', ...(await topStatements(db)), '');
      }
      const rows = await tableRows(db);
      rowLines.push(`| after round ${round} | ${TABLES.map((t) => `${rows.get(t)?.dead ?? '-'}`).join(' | ')} |`);
    }
  } finally {
    for (const server of servers) await server.stop();
  }
  const leads = Number((await db('leads').where('org_id', orgId).count({ n: '*' }))[0]?.n);
  await db.destroy();

  out.push(
    `${machineLine(pgVersion)}; ours from ${serviceDir}; autovacuum ${autovacuum}; ${url.replace(/\/\/[^@]*@/, '//')}; a new workspace of ${START_LEADS} leads (${leads} at the end); ${CONNECTIONS} connections, ${WARMUP} s warm-up (${FIRST_WARMUP} s before round 1) and ${SECONDS} s counted per round; each server started once; PostgreSQL CPU of ${postmasterPid ? `postmaster ${postmasterPid}'s processes` : 'every postgres process'} (the service's counter folding and any autovacuum included).`,
    '',
    '| round | ours req/s | ours PostgreSQL µs/create | ours p99 ms | bare req/s | bare PostgreSQL µs/create |',
    '|---:|---:|---:|---:|---:|---:|',
  );
  for (let round = 1; round <= ROUNDS; round++) {
    const ours = rounds.find((r) => r.round === round && r.name === 'ours')!.result;
    const bare = rounds.find((r) => r.round === round && r.name === 'bare create')!.result;
    out.push(`| ${round} | ${ours.rps} | ${ours.databaseCpuUsPerRequest} | ${ours.p99.toFixed(1)} | ${bare.rps} | ${bare.databaseCpuUsPerRequest} |`);
  }
  out.push('', 'Dead rows (pg_stat_user_tables.n_dead_tup):', '', `| when | ${TABLES.join(' | ')} |`, `|---|${TABLES.map(() => '---:').join('|')}|`, ...rowLines);
  if (statementTables.length) out.push('', 'Costliest statements per round (pg_stat_statements):', '', ...statementTables);
  process.stdout.write(`${out.join('\n')}\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
