import { openBenchDatabase, ensureWorkspace, createBenchKey, postgresVersion, DEFAULT_BENCH_URL } from './lib/dataset';
import { startServer, buildService, serviceEnv, serviceArgs, cpuTimeUs } from './lib/processes';
import { machineLine, median } from './lib/report';
import { walk } from './lib/walk';

// `npx tsx bench/cursor-walk.ts [--rounds 3] [--baseline-entry DIR/src/index.js]`: the full run's
// cursor walk (every lead of a 100,000-lead workspace, pages of 100, one request at a time),
// repeated for several rounds, with the server's CPU per page; with --baseline-entry an older
// build (made as bench/ratios.ts says) walks in turn with ours. Medians of the rounds.
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const rounds = Number(arg('--rounds') ?? 3);
const baselineEntry = arg('--baseline-entry');
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
/** The workspace the full run walks (bench/run.ts's first "other" workspace). */
const WORKSPACE = { name: 'bench other 1 100000', leads: 100_000 };

async function main(): Promise<void> {
  const db = await openBenchDatabase(url);
  const { orgId } = await ensureWorkspace(db, WORKSPACE.name, WORKSPACE.leads);
  const key = await createBenchKey(db, orgId);
  const pgVersion = await postgresVersion(db);
  await db.destroy();

  const builds = [{ name: 'ours', entry: buildService() }, ...(baselineEntry ? [{ name: 'baseline', entry: baselineEntry }] : [])];
  const results = new Map(builds.map((b) => [b.name, [] as { seconds: number; cpuUsPerPage: number }[]]));
  for (let round = 1; round <= rounds; round++) {
    for (const build of builds) {
      const server = await startServer(build.name, serviceArgs(build.entry), serviceEnv(url));
      try {
        // A short walk first, so the counted one runs optimised code.
        await walk(server.baseUrl, key, 10_000, 'cursor', 60);
        const cpuBefore = cpuTimeUs(server.pid);
        const result = await walk(server.baseUrl, key, WORKSPACE.leads, 'cursor', 300);
        if (!result.everyIdOnce) throw new Error(`${build.name}: the walk did not see every id exactly once`);
        const cpuUsPerPage = Math.round((cpuTimeUs(server.pid) - cpuBefore) / result.pages);
        results.get(build.name)!.push({ seconds: result.seconds, cpuUsPerPage });
        process.stderr.write(`round ${round} ${build.name}: ${result.seconds} s, ${result.pages} pages, ${cpuUsPerPage} us of server CPU a page\n`);
      } finally {
        await server.stop();
      }
    }
  }
  const lines = [
    `${machineLine(pgVersion)}; cursor walks of ${WORKSPACE.leads} leads in pages of 100, ${rounds} rounds taking turns; medians.`,
    '',
    '| build | walk seconds (each round) | median seconds | median server CPU µs/page |',
    '|---|---|---:|---:|',
    ...builds.map(({ name }) => {
      const r = results.get(name)!;
      return `| ${name} | ${r.map((x) => x.seconds).join(', ')} | ${median(r.map((x) => x.seconds))} | ${median(r.map((x) => x.cpuUsPerPage))} |`;
    }),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
