import { openLargeWorkspace, DEFAULT_BENCH_URL } from './lib/dataset';
import { startServer, buildService, runCannon, sampleRss, serviceEnv, serviceArgs } from './lib/processes';
import { machineLine, median } from './lib/report';

// `npx tsx bench/memory-flags.ts [--rounds 3] ["none;shipped;--max-semi-space-size=2"]`: peak RSS of
// the compiled server under 50 connections on the million-lead workspace's first page
// (unfiltered, by status, unassigned, a common-term search), for each set of node flags
// (';'-separated; `none` is V8's defaults, `shipped` is what `npm run start:prod` runs), the sets
// taking turns for several rounds; prints each round and the medians. Server CPU per unfiltered
// page is the steadier cost column on a shared machine (req/s moves by ±15% between rounds).
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const rounds = Number(arg('--rounds') ?? 3);
const positional = process.argv.slice(2).filter((a, i, all) => a !== '--rounds' && all[i - 1] !== '--rounds');
const flagSets = (positional[0] ?? 'none;shipped').split(';');
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
const CASES: [string, Record<string, string>][] = [['none', {}], ['status', { status: 'QUALIFIED' }], ['unassigned', { assignedToId: 'unassigned' }], ['search', { search: 'Patel' }]];

interface Round { peakMb: number; rps: number[]; cpuUs: number }

async function main(): Promise<void> {
  const { key, pgVersion } = await openLargeWorkspace(url);
  const entry = buildService();
  const env = serviceEnv(url);
  const argsOf = (flags: string) => (flags === 'none' ? [entry] : flags === 'shipped' ? serviceArgs(entry) : [...flags.split(' '), entry]);
  const results = new Map<string, Round[]>(flagSets.map((flags) => [flags, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const flags of flagSets) {
      const server = await startServer('ours', argsOf(flags), env);
      const rss = sampleRss(server.pid);
      const rps: number[] = [];
      let cpuUs = 0;
      for (const [name, query] of CASES) {
        const list = `${server.baseUrl}/api/v1/leads?${new URLSearchParams({ pageSize: '100', ...query })}`;
        const r = await runCannon({ url: list, headers: { Authorization: `Bearer ${key}` }, connections: 50, warmupSeconds: 2, seconds: 8 }, server.pid);
        rps.push(r.rps);
        if (name === 'none') cpuUs = r.serverCpuUsPerRequest ?? NaN;
      }
      const peakMb = rss.stop();
      await server.stop();
      results.get(flags)!.push({ peakMb, rps, cpuUs });
      console.error(`round ${round} ${flags}: peak ${peakMb} MB, req/s ${rps.join(' / ')}, ${cpuUs} us per unfiltered page`);
    }
  }
  const label = (flags: string) => (flags === 'none' ? '(V8 defaults)' : flags === 'shipped' ? `shipped: \`${serviceArgs('').slice(0, -1).join(' ')}\`` : `\`${flags}\``);
  console.log(`${machineLine(pgVersion)}; ${rounds} rounds taking turns, 50 connections, 2 s warm-up and 8 s counted per case; medians.\n`);
  console.log('| node flags | peak RSS | list req/s (none / status / unassigned / search) | server CPU µs per unfiltered page |');
  console.log('|---|---:|---|---:|');
  for (const [flags, rs] of results) {
    const rps = CASES.map((_, i) => median(rs.map((r) => r.rps[i]!))).join(' / ');
    console.log(`| ${label(flags)} | ${median(rs.map((r) => r.peakMb))} MB | ${rps} | ${median(rs.map((r) => r.cpuUs))} |`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
