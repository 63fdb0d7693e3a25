import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLargeWorkspace, DEFAULT_BENCH_URL } from './lib/dataset';
import { startServer, buildService, runCannon, serviceEnv, serviceArgs } from './lib/processes';
import type { CannonJob } from './lib/cannon';

// `npx tsx bench/cpu-profile.ts <getById|list|create> [rate] [connections]`: runs the compiled
// server under V8's CPU profiler while autocannon holds a fixed rate on one case of `npm run bench`
// (getById: 800 req/s at 50 connections; list: the first page of 100 leads, 300 req/s at 10;
// create: 200 req/s at 10, into the benchmark's writes workspace),
// then prints the server's CPU per request and its self time grouped by package, our files,
// Node's modules and native entries (writev, GC), as shares of the busy (non-idle) time.
// TOP=N prints the N largest groups (15 by default).
const [which = 'list', rateArg, connArg] = process.argv.slice(2);
const DEFAULTS = { getById: { rate: 800, connections: 50 }, list: { rate: 300, connections: 10 }, create: { rate: 200, connections: 10 } };
if (!(which in DEFAULTS)) throw new Error('case: getById, list or create');
const rate = Number(rateArg ?? DEFAULTS[which as keyof typeof DEFAULTS].rate);
const connections = Number(connArg ?? DEFAULTS[which as keyof typeof DEFAULTS].connections);
/** Long enough for V8 to finish optimising the path: at 200 creates a second it is still compiling after 5 s. */
const warmupSeconds = Number(process.env.WARMUP_SECONDS ?? 3);
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

/** Self time by group over the profile's last `windowUs` (the counted run: warm-up and start-up left out). */
function selfTimeByGroup(profile: Profile, windowUs: number): [string, number][] {
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const byGroup = new Map<string, number>();
  const total = profile.timeDeltas.reduce((a, b) => a + b, 0);
  let at = 0;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at < total - windowUs) return;
    const group = groupOf(frames.get(id)!);
    byGroup.set(group, (byGroup.get(group) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  byGroup.delete('(idle)');
  const busy = [...byGroup.values()].reduce((a, b) => a + b, 0);
  return [...byGroup].map(([g, t]) => [g, (100 * t) / busy] as [string, number]).sort((a, b) => b[1] - a[1]);
}

async function main(): Promise<void> {
  const { key, sample, writes: writesWorkspace } = await openLargeWorkspace(url, { writes: true });
  const { orgId: writes, key: writesKey } = writesWorkspace!;
  const dir = mkdtempSync(join(tmpdir(), 'wsapi-cpu-'));
  const server = await startServer('ours', ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...serviceArgs(buildService())], serviceEnv(url));
  const seconds = 10;
  const tag = Date.now() % 1_000_000;
  const job: Omit<CannonJob, 'connections' | 'rate' | 'warmupSeconds' | 'seconds'> = which === 'create'
    ? {
      url: `${server.baseUrl}/api/v1/rpc/leads.create`,
      method: 'POST',
      headers: { Authorization: `Bearer ${writesKey}`, 'content-type': 'application/json' },
      bodies: Array.from({ length: 5000 }, (_, i) => JSON.stringify({ json: { name: `Profile ${tag} ${i}`, phone: `+4475${String(tag % 100).padStart(2, '0')}${String(i).padStart(6, '0')}` } })),
    }
    : {
      url: which === 'list'
        ? `${server.baseUrl}/api/v1/leads?pageSize=100`
        : `${server.baseUrl}/api/v1/rpc/leads.getById?input=${encodeURIComponent(JSON.stringify({ json: { id: sample.leadId } }))}`,
      headers: { Authorization: `Bearer ${key}` },
    };
  const result = await runCannon({ ...job, connections, rate, warmupSeconds, seconds }, server.pid);
  await server.stop(); // the profile is written as the server exits
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile written in ${dir}`);
  process.stdout.write(`${which} at ${rate} req/s, ${connections} connections: ${result.serverCpuUsPerRequest} us of server CPU per request, p50 ${result.p50.toFixed(1)} ms\n`);
  process.stdout.write(`share of busy time (self) in the counted ${seconds} s, top ${process.env.TOP ?? 15}:\n`);
  for (const [group, share] of selfTimeByGroup(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile, seconds * 1e6).slice(0, Number(process.env.TOP ?? 15))) {
    process.stdout.write(`${share.toFixed(1).padStart(6)}%  ${group}\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
