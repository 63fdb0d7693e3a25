import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_BENCH_URL } from './lib/dataset';
import { runCannon } from './lib/processes';
import { PROFILE_CASES, profileCaseOf, startProfiledCase } from './lib/profile-cases';

// `npx tsx bench/cpu-profile.ts <getById|ceiling|list|create> [rate] [connections]`: runs the compiled
// server (or the ceiling, to set beside getById) under V8's CPU profiler while autocannon holds a
// fixed rate on one case of `npm run bench` (lib/profile-cases.ts), then prints the server's CPU per request and its self time grouped by package, our files,
// Node's modules and native entries (writev, GC), as shares of the busy (non-idle) time and as
// µs per request (the profiler's own cost included, so compare two cases of one machine).
// TOP=N prints the N largest groups (15 by default).
const [whichArg = 'list', rateArg, connArg] = process.argv.slice(2);
const which = profileCaseOf(whichArg);
const rate = Number(rateArg ?? PROFILE_CASES[which].rate);
const connections = Number(connArg ?? PROFILE_CASES[which].connections);
/** Long enough for V8 to finish optimising the path: at 200 creates a second it is still compiling after 5 s. */
const warmupSeconds = Number(process.env.WARMUP_SECONDS ?? 3);
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string } }[];
  samples: number[];
  timeDeltas: number[];
}

function groupOf(frame: Profile['nodes'][number]['callFrame']): string {
  // Our compiled files live under .tmp/bench-dist/src (buildService); matched before packages.
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
  const dir = mkdtempSync(join(tmpdir(), 'wsapi-cpu-'));
  const { server, job } = await startProfiledCase(which, url, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  const seconds = 10;
  const result = await runCannon({ ...job, connections, rate, warmupSeconds, seconds }, server.pid);
  await server.stop(); // the profile is written as the server exits
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile written in ${dir}`);
  process.stdout.write(`${which} at ${rate} req/s, ${connections} connections: ${result.serverCpuUsPerRequest} us of server CPU per request, p50 ${result.p50.toFixed(1)} ms\n`);
  process.stdout.write(`share of busy time (self) in the counted ${seconds} s, top ${process.env.TOP ?? 15}:\n`);
  for (const [group, share] of selfTimeByGroup(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile, seconds * 1e6).slice(0, Number(process.env.TOP ?? 15))) {
    const us = (share / 100) * (result.serverCpuUsPerRequest ?? 0);
    process.stdout.write(`${share.toFixed(1).padStart(6)}% ${us.toFixed(0).padStart(5)} µs  ${group}\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
