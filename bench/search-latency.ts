import { openLargeWorkspace, DEFAULT_BENCH_URL } from './lib/dataset';
import { startServer, buildService, runCannon, serviceEnv, serviceArgs } from './lib/processes';
import { getPage, walk } from './lib/walk';

// `npx tsx bench/search-latency.ts [rounds]`: only the list's search cases of `npm run bench`, on
// its million-lead workspace, at 1 connection (the latency targets) and at 50 (throughput), in
// `rounds` rounds against one running server, then a cursor walk of every lead matching the
// common term, so a change to search can be measured in minutes.
const rounds = Number(process.argv[2] ?? 3);
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;

async function main(): Promise<void> {
  const { key, sample } = await openLargeWorkspace(url);
  const server = await startServer('ours', serviceArgs(buildService()), serviceEnv(url));
  try {
    const cases: [string, string][] = [['common "Patel" (~2.5%)', 'Patel'], [`rare "${sample.rareTerm}"`, sample.rareTerm], [`phone "${sample.phoneFragment}"`, sample.phoneFragment]];
    const headers = { Authorization: `Bearer ${key}` };
    process.stdout.write('| round | case | conns | req/s | p50 ms | p95 ms | non-2xx |\n|---:|---|---:|---:|---:|---:|---:|\n');
    for (let round = 1; round <= rounds; round++) {
      for (const [label, term] of cases) {
        for (const connections of [1, 50]) {
          const target = `${server.baseUrl}/api/v1/leads?${new URLSearchParams({ pageSize: '100', search: term })}`;
          const r = await runCannon({ url: target, headers, connections, warmupSeconds: 2, seconds: 8 });
          process.stdout.write(`| ${round} | ${label} | ${connections} | ${r.rps} | ${r.p50} | ${r.p95} | ${r.non2xx} |\n`);
        }
      }
    }
    // A program reading every match of the common term: its pages after the first are keyset pages.
    const { total } = (await getPage(server.baseUrl, key, { search: 'Patel', pageSize: '1' })).pagination;
    const walked = await walk(server.baseUrl, key, total, 'cursor', 300, { search: 'Patel' });
    process.stdout.write(`\ncursor walk of the ${total} leads matching "Patel": ${walked.pages} pages in ${walked.seconds} s, every id exactly once: ${walked.everyIdOnce ? 'yes' : 'no'}\n`);
  } finally {
    await server.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
