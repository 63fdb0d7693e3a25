import { openLargeWorkspace, DEFAULT_BENCH_URL } from './lib/dataset';
import { startServer, buildService, runCannon, serviceEnv, serviceArgs } from './lib/processes';
import { median } from './lib/report';
import { getPage, walk } from './lib/walk';

// `npx tsx bench/search-latency.ts [rounds] [--baseline-entry DIR/src/index.js]`: only the list's
// search cases of `npm run bench`, on its million-lead workspace, at 1 connection (the latency
// targets) and at 50 (throughput), in `rounds` rounds against one running server, then a cursor
// walk of every lead matching the common term, so a change to search can be measured in minutes.
// With --baseline-entry (an older build) both servers run, taking turns case by case (which goes
// first alternates by round), and the medians of the rounds are printed for each.
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const baselineEntry = arg('--baseline-entry');
const rounds = Number(process.argv.slice(2).find((a, i, all) => /^\d+$/.test(a) && all[i - 1] !== '--baseline-entry') ?? 3);
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;

async function main(): Promise<void> {
  const { key, sample } = await openLargeWorkspace(url);
  const builds: [string, string][] = [['this build', buildService()], ...(baselineEntry ? [['baseline', baselineEntry] as [string, string]] : [])];
  const servers = await Promise.all(builds.map(([, entry]) => startServer('ours', serviceArgs(entry), serviceEnv(url))));
  const results: Record<string, { rps: number[]; p50: number[]; p95: number[] }> = {};
  try {
    const cases: [string, string][] = [['common "Patel" (~2.5%)', 'Patel'], [`rare "${sample.rareTerm}"`, sample.rareTerm], [`phone "${sample.phoneFragment}"`, sample.phoneFragment]];
    const headers = { Authorization: `Bearer ${key}` };
    process.stdout.write('| round | build | case | conns | req/s | p50 ms | p95 ms | non-2xx |\n|---:|---|---|---:|---:|---:|---:|---:|\n');
    for (let round = 1; round <= rounds; round++) {
      const order = builds.map((build, i) => [build[0], servers[i]!] as const);
      if (round % 2 === 0) order.reverse();
      for (const [label, term] of cases) {
        for (const connections of [1, 50]) {
          for (const [build, server] of order) {
            const target = `${server.baseUrl}/api/v1/leads?${new URLSearchParams({ pageSize: '100', search: term })}`;
            const r = await runCannon({ url: target, headers, connections, warmupSeconds: 2, seconds: 8 });
            const cell = (results[`| ${build} | ${label} | ${connections} |`] ??= { rps: [], p50: [], p95: [] });
            cell.rps.push(r.rps);
            cell.p50.push(r.p50);
            cell.p95.push(r.p95);
            process.stdout.write(`| ${round} | ${build} | ${label} | ${connections} | ${r.rps} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.non2xx} |\n`);
          }
        }
      }
    }
    process.stdout.write(`\nMedians of ${rounds} rounds:\n\n| build | case | conns | req/s | p50 ms | p95 ms |\n|---|---|---:|---:|---:|---:|\n`);
    for (const [row, cell] of Object.entries(results)) {
      process.stdout.write(`${row} ${median(cell.rps)} | ${median(cell.p50).toFixed(1)} | ${median(cell.p95).toFixed(1)} |\n`);
    }
    // A program reading every match of the common term: its pages after the first are keyset pages.
    for (const [i, [build]] of builds.entries()) {
      const server = servers[i]!;
      const { total } = (await getPage(server.baseUrl, key, { search: 'Patel', pageSize: '1' })).pagination;
      const walked = await walk(server.baseUrl, key, total, 'cursor', 300, { search: 'Patel' });
      process.stdout.write(`\n${build}: cursor walk of the ${total} leads matching "Patel": ${walked.pages} pages in ${walked.seconds} s, every id exactly once: ${walked.everyIdOnce ? 'yes' : 'no'}\n`);
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
