import { resolve } from 'node:path';
import { openBenchDatabase, ensureWorkspace, createBenchKey, sampleOf, DEFAULT_BENCH_URL, postgresVersion } from './lib/dataset';
import { withServer, buildService, runCannon, serviceEnv, serviceArgs, BENCH_POOL_MAX } from './lib/processes';
import { machineLine } from './lib/report';
import type { CannonJob, CannonResult } from './lib/cannon';

/**
 * `npx tsx bench/hot-reads.ts <other checkout> [--rounds N] [--leads N]`: whether the hot reads'
 * speed trick earns its place. In rounds taking turns, each server alone: bare Express + knex
 * (bench/servers/ceiling.ts), the `@trpc/server` peer, this checkout's service and the other
 * checkout's (built and started the same way), on `leads.getById` and the REST list's first page
 * at 50 connections. Prints each round's req/s and server CPU per request, and the medians' ratios.
 */
const args = process.argv.slice(2);
const other = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a));
if (!other) throw new Error('give the other checkout: npx tsx bench/hot-reads.ts <dir>');
const option = (name: string, fallback: number) => Number(args[args.indexOf(name) + 1] ?? fallback) || fallback;
const ROUNDS = args.includes('--rounds') ? option('--rounds', 3) : 3;
const LEADS = args.includes('--leads') ? option('--leads', 100_000) : 100_000;
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;

const rpcGet = (base: string, name: string, input: unknown) => `${base}/api/v1/rpc/${name}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;
const measure = (job: Omit<CannonJob, 'warmupSeconds' | 'seconds'>, pid: number) => runCannon({ ...job, warmupSeconds: 2, seconds: 8 }, pid);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const db = await openBenchDatabase(url);
  const ws = await ensureWorkspace(db, `bench other 1 ${LEADS}`, LEADS);
  const key = await createBenchKey(db, ws.orgId);
  const sample = await sampleOf(db, ws.orgId);
  const pg = await postgresVersion(db);
  await db.destroy();
  const auth = { Authorization: `Bearer ${key}` };
  const env = { DATABASE_URL: url, DB_POOL_MAX: BENCH_POOL_MAX };
  const services = { ours: buildService(), without: buildService(resolve(other!)) };
  const results: Record<string, { getById: CannonResult[]; page: CannonResult[] }> = {};
  const keep = (name: string, kind: 'getById' | 'page', r: CannonResult) => {
    results[name] ??= { getById: [], page: [] };
    results[name][kind].push(r);
    process.stderr.write(`  ${name} ${kind}: ${r.rps} req/s, ${r.serverCpuUsPerRequest} us CPU/request\n`);
  };
  for (let round = 1; round <= ROUNDS; round += 1) {
    process.stderr.write(`round ${round}\n`);
    await withServer('ceiling', ['--import', 'tsx', 'bench/servers/ceiling.ts'], env, async (s) => {
      keep('ceiling', 'getById', await measure({ url: `${s.baseUrl}/leads/${ws.orgId}/${sample.leadId}`, connections: 50 }, s.pid));
    });
    await withServer('peer', ['--import', 'tsx', 'bench/servers/trpc-peer.ts'], env, async (s) => {
      keep('peer', 'getById', await measure({ url: rpcGet(s.baseUrl, 'leads.getById', { orgId: ws.orgId, id: sample.leadId }).replace('/api/v1/rpc/', '/trpc/'), connections: 50 }, s.pid));
    });
    for (const [name, entry] of Object.entries(services)) {
      await withServer(name, serviceArgs(entry), serviceEnv(url), async (s) => {
        keep(name, 'getById', await measure({ url: rpcGet(s.baseUrl, 'leads.getById', { id: sample.leadId }), headers: auth, connections: 50 }, s.pid));
        keep(name, 'page', await measure({ url: `${s.baseUrl}/api/v1/leads?pageSize=100`, headers: auth, connections: 50 }, s.pid));
      });
    }
  }
  const rps = (name: string, kind: 'getById' | 'page') => median(results[name]![kind].map((r) => r.rps));
  const cpu = (name: string, kind: 'getById' | 'page') => median(results[name]![kind].map((r) => r.serverCpuUsPerRequest ?? 0));
  const ratio = (a: number, b: number) => (a / b).toFixed(2);
  process.stdout.write([
    `${machineLine(pg)}; a workspace of ${LEADS} leads; ${ROUNDS} rounds, 8 s each case at 50 connections; medians (each round's in brackets)`,
    '',
    '| | getById req/s | CPU us/req | first page req/s | CPU us/req |',
    '|---|---:|---:|---:|---:|',
    ...Object.keys(results).map((name) => `| ${name} | ${rps(name, 'getById')} (${results[name]!.getById.map((r) => r.rps).join(', ')}) | ${cpu(name, 'getById')} | ${results[name]!.page.length ? `${rps(name, 'page')} (${results[name]!.page.map((r) => r.rps).join(', ')})` : '-'} | ${results[name]!.page.length ? cpu(name, 'page') : '-'} |`),
    '',
    `- getById: ours / ceiling ${ratio(rps('ours', 'getById'), rps('ceiling', 'getById'))}x, without / ceiling ${ratio(rps('without', 'getById'), rps('ceiling', 'getById'))}x; ours / peer ${ratio(rps('ours', 'getById'), rps('peer', 'getById'))}x, without / peer ${ratio(rps('without', 'getById'), rps('peer', 'getById'))}x`,
    `- first page: without / ours ${ratio(rps('without', 'page'), rps('ours', 'page'))}x`,
    '',
  ].join('\n'));
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
