import { openBenchDatabase, ensureWorkspace, createBenchKey, DEFAULT_BENCH_URL } from './lib/dataset';
import { startServer, buildService, runCannon, sampleRss, serviceEnv } from './lib/processes';

// `npx tsx bench/memory-flags.ts ["--max-semi-space-size=2;--optimize-for-size"]`: peak RSS of the
// compiled server under 50 connections on the million-lead workspace's first page (unfiltered, by
// status, unassigned, a common-term search), once per set of node flags (';'-separated; `none` is
// V8's defaults), with req/s and server CPU per request for each case.
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
const flagSets = (process.argv[2] ?? 'none;--max-semi-space-size=2;--optimize-for-size;--max-semi-space-size=2 --max-old-space-size=96').split(';');
const CASES: [string, Record<string, string>][] = [['none', {}], ['status', { status: 'QUALIFIED' }], ['unassigned', { assignedToId: 'unassigned' }], ['search', { search: 'Patel' }]];

async function main(): Promise<void> {
  const db = await openBenchDatabase(url);
  const large = await ensureWorkspace(db, 'bench large 1000000', 1_000_000);
  const key = await createBenchKey(db, large.orgId);
  await db.destroy();
  const entry = buildService();
  const env = serviceEnv(url);
  console.log('| node flags | peak RSS | req/s (none / status / unassigned / search) | server CPU µs per unfiltered page |');
  console.log('|---|---:|---|---:|');
  for (const flags of flagSets) {
    const server = await startServer('ours', flags === 'none' ? [entry] : [...flags.split(' '), entry], env);
    const rss = sampleRss(server.pid);
    const results = [];
    for (const [, query] of CASES) {
      const list = `${server.baseUrl}/api/v1/leads?${new URLSearchParams({ pageSize: '100', ...query })}`;
      results.push(await runCannon({ url: list, headers: { Authorization: `Bearer ${key}` }, connections: 50, warmupSeconds: 2, seconds: 8 }, server.pid));
    }
    const peak = rss.stop();
    await server.stop();
    console.log(`| ${flags === 'none' ? '(defaults)' : `\`${flags}\``} | ${peak} MB | ${results.map((r) => r.rps).join(' / ')} | ${results[0]!.serverCpuUsPerRequest} |`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
