import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBenchDatabase, ensureWorkspace, createBenchKey, sampleOf, DEFAULT_BENCH_URL } from './lib/dataset';
import { startServer, buildService, runCannon } from './lib/processes';

// `npx tsx bench/cpu-profile.ts <getById|list> [rate] [connections]`: runs the compiled server
// under V8's CPU profiler while autocannon holds a fixed rate on one case of `npm run bench`
// (getById: 800 req/s at 50 connections; list: the first page of 100 leads, 300 req/s at 10),
// then prints the server's CPU per request and its self time grouped by package, our files,
// Node's modules and native entries (writev, GC), as shares of the busy (non-idle) time.
const [which = 'list', rateArg, connArg] = process.argv.slice(2);
if (which !== 'list' && which !== 'getById') throw new Error('case: getById or list');
const rate = Number(rateArg ?? (which === 'list' ? 300 : 800));
const connections = Number(connArg ?? (which === 'list' ? 10 : 50));
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string } }[];
  samples: number[];
  timeDeltas: number[];
}

function groupOf(frame: Profile['nodes'][number]['callFrame']): string {
  // Our compiled files live under node_modules/.cache (buildService), so they are matched first.
  const ours = /\/src\/(.+)$/.exec(frame.url);
  if (ours) return `ours: ${ours[1]}`;
  const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(frame.url);
  if (pkg) return pkg[1]!;
  if (frame.url.startsWith('node:')) return frame.url;
  return frame.functionName || '(native)';
}

function selfTimeByGroup(profile: Profile): [string, number][] {
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const byGroup = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const group = groupOf(frames.get(id)!);
    byGroup.set(group, (byGroup.get(group) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  byGroup.delete('(idle)');
  const busy = [...byGroup.values()].reduce((a, b) => a + b, 0);
  return [...byGroup].map(([g, t]) => [g, (100 * t) / busy] as [string, number]).sort((a, b) => b[1] - a[1]);
}

async function main(): Promise<void> {
  const db = await openBenchDatabase(url);
  const large = await ensureWorkspace(db, 'bench large 1000000', 1_000_000);
  const key = await createBenchKey(db, large.orgId);
  const sample = await sampleOf(db, large.orgId);
  await db.destroy();
  const dir = mkdtempSync(join(tmpdir(), 'wsapi-cpu-'));
  const server = await startServer('ours', ['--cpu-prof', `--cpu-prof-dir=${dir}`, buildService()], {
    DATABASE_URL: url, DB_POOL_MAX: '10', NODE_ENV: 'production', LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '0',
    SESSION_SECRET: randomBytes(32).toString('hex'), TOKEN_SECRET: randomBytes(32).toString('hex'),
  });
  const target = which === 'list'
    ? `${server.baseUrl}/api/v1/leads?pageSize=100`
    : `${server.baseUrl}/api/v1/rpc/leads.getById?input=${encodeURIComponent(JSON.stringify({ json: { id: sample.leadId } }))}`;
  const result = await runCannon({ url: target, headers: { Authorization: `Bearer ${key}` }, connections, rate, warmupSeconds: 3, seconds: 10 }, server.pid);
  await server.stop(); // the profile is written as the server exits
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile written in ${dir}`);
  process.stdout.write(`${which} at ${rate} req/s, ${connections} connections: ${result.serverCpuUsPerRequest} us of server CPU per request, p50 ${result.p50.toFixed(1)} ms\n`);
  process.stdout.write('share of busy time (self), top 15:\n');
  for (const [group, share] of selfTimeByGroup(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile).slice(0, 15)) {
    process.stdout.write(`${share.toFixed(1).padStart(6)}%  ${group}\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
