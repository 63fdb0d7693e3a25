import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_BENCH_URL } from './lib/dataset';
import { runCannon } from './lib/processes';
import { PROFILE_CASES, profileCaseOf, startProfiledCase } from './lib/profile-cases';

// `npx tsx bench/alloc-profile.ts <getById|ceiling|list|create> [rate] [connections]`: the bytes
// a request allocates, by allocating function. Runs the case's server (lib/profile-cases.ts) with
// V8's sampling heap profiler (lib/allocation-sampler.cjs), which keeps collected objects too,
// so it counts what is allocated rather than what survives: the garbage a request leaves is what
// the collector pays for. Warms up for 4 s, then samples a counted 8 s at the case's fixed rate,
// and prints bytes per request in all and for the TOP (20) largest allocating sites.
const [whichArg = 'getById', rateArg, connArg] = process.argv.slice(2);
const which = profileCaseOf(whichArg);
const rate = Number(rateArg ?? PROFILE_CASES[which].rate);
const connections = Number(connArg ?? PROFILE_CASES[which].connections);
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

/** Bytes by allocating site (function, file relative to node_modules or src, line). */
function bytesBySite(head: ProfileNode): Map<string, number> {
  const bySite = new Map<string, number>();
  const visit = (node: ProfileNode) => {
    const { functionName, url: file, lineNumber } = node.callFrame;
    const where = file.replace(/^.*node_modules\/(?!\.cache)/, '').replace(/^.*\/src\//, 'src/').replace(/^file:\/\//, '');
    const site = `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
    if (node.selfSize > 0) bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    node.children.forEach(visit);
  };
  visit(head);
  return bySite;
}

async function main(): Promise<void> {
  const out = join(mkdtempSync(join(tmpdir(), 'wsapi-alloc-')), 'allocations.heapprofile');
  const sampler = resolve(__dirname, 'lib/allocation-sampler.cjs');
  const { server, job } = await startProfiledCase(which, url, ['--require', sampler], { ALLOC_PROFILE_OUT: out });
  await runCannon({ ...job, connections, rate, warmupSeconds: 0, seconds: 4 }, server.pid);
  process.kill(server.pid, 'SIGUSR2');
  await new Promise((done) => setTimeout(done, 200));
  const result = await runCannon({ ...job, connections, rate, warmupSeconds: 0, seconds: 8 }, server.pid);
  await server.stop(); // the sampler writes its profile as the server exits
  const bySite = bytesBySite((JSON.parse(readFileSync(out, 'utf8')) as { head: ProfileNode }).head);
  const total = [...bySite.values()].reduce((a, b) => a + b, 0);
  // Requests answered while sampling: the counted run's (the 200 ms before it are idle).
  const perRequest = (bytes: number) => Math.round(bytes / result.requests);
  process.stdout.write(`${which} at ${rate} req/s, ${connections} connections: ${result.requests} requests sampled, ${perRequest(total)} bytes allocated per request, ${result.serverCpuUsPerRequest} us of server CPU per request\n`);
  for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 20))) {
    process.stdout.write(`${String(perRequest(bytes)).padStart(7)} B  ${site}\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
