import { createDb } from '../src/db/knex';
import { openLargeWorkspace, baselineKeys, DEFAULT_BENCH_URL } from './lib/dataset';
import { startServer, buildService, serviceEnv, serviceArgs, cpuTimeUs, postmasterOf, postgresCpuTimes, postgresCpuSince } from './lib/processes';
import { machineLine, median } from './lib/report';

// `npx tsx bench/write-cost.ts [--writes 1500] [--rounds 2] [--cases create,update] [--baseline-entry DIR/src/index.js [--baseline-database URL]]`:
// what one write costs, without concurrency: one connection (a pool of one) sends leads.create
// (into the writes workspace) or leads.update (a lead's notes, of the million-lead workspace's
// leads as bench/ratios.ts changes them) one after another, and each write's PostgreSQL CPU, server
// CPU and WAL (pg_current_wal_lsn) are counted, ours and the baseline build in turn. Steadier than
// throughput on a shared machine, whose rounds spread by ±30%. WAL in records (steady), full-page
// images (which follow checkpoints, not the write) and bytes. Build the baseline as ratios.ts says.
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const writes = Number(arg('--writes') ?? 1500);
const rounds = Number(arg('--rounds') ?? 2);
const cases = (arg('--cases') ?? 'create,update').split(',') as ('create' | 'update')[];
const baselineEntry = arg('--baseline-entry');
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
const baselineUrl = arg('--baseline-database') ?? url;
const WARMUP_WRITES = 300;

interface Cost { postgresUs: number; serverUs: number; walBytes: number; walRecords: number; walFullPages: number }

async function main(): Promise<void> {
  const large = await openLargeWorkspace(url, { writes: true });
  // Plain connections: openBenchDatabase would migrate the baseline's database to this schema.
  const db = createDb({ url, poolMax: 1 });
  const postmasterPid = postmasterOf(Number((await db.raw('select pg_backend_pid() as pid')).rows[0].pid));
  const builds = [{ name: 'ours', entry: buildService(), databaseUrl: url, keys: [large.key, large.writes!.key] }];
  if (baselineEntry) {
    builds.push({ name: 'baseline', entry: baselineEntry, databaseUrl: baselineUrl,
      keys: baselineUrl === url ? builds[0]!.keys : await baselineKeys(baselineEntry, baselineUrl, [large.orgId, large.writes!.orgId]) });
  }
  let sent = 0;
  const bodyOf = (which: 'create' | 'update') => {
    sent += 1;
    return which === 'create'
      ? { name: `Write cost ${process.pid} ${sent}`, phone: `+447400${String(sent % 1_000_000).padStart(6, '0')}` }
      : { id: large.updateIds[sent % large.updateIds.length], notes: `Write cost ${process.pid} ${sent}` };
  };
  const costs = new Map<string, Cost[]>();
  for (let round = 1; round <= rounds; round++) {
    for (const which of cases) {
      for (const build of round % 2 === 0 ? [...builds].reverse() : builds) {
        const admin = createDb({ url: build.databaseUrl, poolMax: 1 });
        const server = await startServer(build.name, serviceArgs(build.entry), { ...serviceEnv(build.databaseUrl, 'warn'), DB_POOL_MAX: '1' });
        try {
          const key = which === 'create' ? build.keys[1]! : build.keys[0]!;
          const write = async () => {
            const res = await fetch(`${server.baseUrl}/api/v1/rpc/leads.${which}`, {
              method: 'POST', headers: { Authorization: `Bearer ${key}`, 'content-type': 'application/json' },
              body: JSON.stringify({ json: bodyOf(which) }),
            });
            if (res.status !== 200) throw new Error(`${build.name} ${which}: ${res.status} ${await res.text()}`);
          };
          for (let i = 0; i < WARMUP_WRITES; i++) await write();
          // pg_stat_wal is the whole server's: nothing else writes meanwhile. Its full-page images follow checkpoints, not the write.
          const wal = async () => (await admin.raw('select wal_records::float8 as records, wal_fpi::float8 as fpi, wal_bytes::float8 as bytes from pg_stat_wal')).rows[0] as { records: number; fpi: number; bytes: number };
          const walBefore = await wal();
          const [postgres, serverCpu] = [postgresCpuTimes(postmasterPid), cpuTimeUs(server.pid)];
          for (let i = 0; i < writes; i++) await write();
          const postgresUs = postgresCpuSince(postgres, postmasterPid) / writes;
          const serverUs = (cpuTimeUs(server.pid) - serverCpu) / writes;
          const walAfter = await wal();
          const cost = {
            postgresUs, serverUs, walBytes: (walAfter.bytes - walBefore.bytes) / writes,
            walRecords: (walAfter.records - walBefore.records) / writes, walFullPages: (walAfter.fpi - walBefore.fpi) / writes,
          };
          process.stderr.write(`round ${round} ${which} ${build.name}: PostgreSQL ${Math.round(postgresUs)} µs, server ${Math.round(serverUs)} µs, `
            + `WAL ${cost.walRecords.toFixed(1)} records, ${cost.walFullPages.toFixed(2)} full pages, ${Math.round(cost.walBytes)} B a write\n`);
          costs.set(`${which} ${build.name}`, [...(costs.get(`${which} ${build.name}`) ?? []), cost]);
        } finally {
          await server.stop();
          await admin.destroy();
        }
      }
    }
  }
  await db.destroy();
  const med = (name: string, field: keyof Cost) => median((costs.get(name) ?? []).map((c) => c[field]));
  const lines = [
    `${machineLine(large.pgVersion)}; one connection, ${writes} writes a run after ${WARMUP_WRITES} unmeasured; ${rounds} rounds taking turns; medians a write.`,
    '',
    '| write | build | PostgreSQL CPU µs | server CPU µs | WAL records | WAL full pages | WAL bytes |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...[...costs.keys()].map((name) => {
      const [which, build] = name.split(' ');
      return `| ${which} | ${build} | ${Math.round(med(name, 'postgresUs'))} | ${Math.round(med(name, 'serverUs'))} | ${med(name, 'walRecords').toFixed(1)} | ${med(name, 'walFullPages').toFixed(2)} | ${Math.round(med(name, 'walBytes'))} |`;
    }),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
