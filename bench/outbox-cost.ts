import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { openBenchDatabase, DEFAULT_BENCH_URL, postgresVersion } from './lib/dataset';
import { startServer, buildService, runCannon, serviceEnv, serviceArgs } from './lib/processes';
import { machineLine, median } from './lib/report';
import type { Db } from '../src/db/knex';
import * as orgsQueries from '../src/db/queries/orgs.queries';
import { issueApiKey } from '../src/auth/api-keys';
import { newId } from '../src/domain/ids';
import { EVENT_READ_SCOPES } from '../src/events/event-types';

// `npx tsx bench/outbox-cost.ts --baseline-entry DIR/src/index.js`: what recording events costs
// leads.create. Three servers take turns, three rounds: a build from before the outbox (the
// baseline, on its own database since its migrations differ), and this build with 0 and with 3
// subscribed endpoints. Each is measured at full speed and at a fixed rate both sustain (server
// CPU per request, the steadier number on a shared machine). Make the baseline with
//   git worktree add /tmp/old bbbba39 && ln -s $PWD/node_modules /tmp/old/ &&
//   (cd /tmp/old && node_modules/.bin/tsc -p tsconfig.build.json --outDir /tmp/old-dist)
const arg = (name: string) => process.argv[process.argv.indexOf(name) + 1];
const baselineEntry = process.argv.includes('--baseline-entry') ? arg('--baseline-entry') : undefined;
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
const baselineUrl = `${url}_baseline`;
const ROUNDS = 3;
const FIXED_RATE = 150;
const SECONDS = 8;

async function workspace(db: Db, name: string, endpoints: number) {
  await db('organisations').where({ name }).delete();
  const org = await orgsQueries.create(db, { name, tier: 'BUSINESS', features: ['DEVELOPER_API'], phoneRegion: 'GB' });
  const key = await issueApiKey(db, new Set(['leads.create']), { orgId: org.id, name: 'bench', scopes: ['leads.create'] });
  for (let i = 0; i < endpoints; i++) {
    await db('webhook_endpoints').insert({
      org_id: org.id, id: newId('wh'), url: 'http://127.0.0.1:9/never-delivered', events: ['*'], secret: 'whsec_bench',
      owner_kind: 'apiKey', owner_id: key.id, read_scopes: [...EVENT_READ_SCOPES],
    });
  }
  return key.key;
}

async function measure(entry: string, databaseUrl: string, key: string) {
  const env = serviceEnv(databaseUrl, 'warn');
  const server = await startServer(entry, serviceArgs(entry), env);
  try {
    const tag = randomBytes(3).toString('hex');
    const bodies = Array.from({ length: 5000 }, (_, i) => JSON.stringify({ json: { name: `Outbox ${tag}-${i}`, phone: `+447400${String(i).padStart(6, '0')}` } }));
    const job = {
      url: `${server.baseUrl}/api/v1/rpc/leads.create`, method: 'POST' as const,
      headers: { 'content-type': 'application/json', Authorization: `Bearer ${key}` }, bodies, connections: 10, warmupSeconds: 2, seconds: SECONDS,
    };
    const full = await runCannon(job, server.pid);
    const fixed = await runCannon({ ...job, rate: FIXED_RATE }, server.pid);
    return { rps: full.rps, p50: full.p50, p99: full.p99, cpuUs: fixed.serverCpuUsPerRequest ?? NaN };
  } finally {
    await server.stop();
  }
}

/** The baseline's database, created if missing and migrated by the baseline build's own migrator. */
async function openBaselineDatabase(entry: string): Promise<Db> {
  const admin = await openBenchDatabase(url);
  const name = new URL(baselineUrl).pathname.slice(1);
  if ((await admin.raw('select 1 from pg_database where datname = ?', [name])).rowCount === 0) await admin.raw(`create database ${name}`);
  await admin.destroy();
  const dist = dirname(entry);
  const { createDb } = require(resolve(dist, 'db/knex.js')) as typeof import('../src/db/knex');
  const { migrateLatest } = require(resolve(dist, 'db/migrator.js')) as typeof import('../src/db/migrator');
  const db = createDb({ url: baselineUrl, poolMax: 2 });
  await migrateLatest(db);
  return db;
}


async function main(): Promise<void> {
  if (!baselineEntry) throw new Error('give --baseline-entry <a build from before the outbox>/src/index.js (see the comment at the top)');
  const db = await openBenchDatabase(url);
  const pgVersion = await postgresVersion(db);
  const cases = [
    { name: 'before the outbox (bbbba39)', entry: baselineEntry, url: baselineUrl, endpoints: 0 },
    { name: 'outbox, 0 subscribed endpoints', entry: buildService(), url, endpoints: 0 },
    { name: 'outbox, 3 subscribed endpoints (6 delivery rows a create)', entry: buildService(), url, endpoints: 3 },
  ];
  const keys = new Map<string, string>();
  keys.set(cases[1]!.name, await workspace(db, 'bench outbox 0', 0));
  keys.set(cases[2]!.name, await workspace(db, 'bench outbox 3', 3));
  // The baseline's database gets the baseline's own migrations (it would refuse a schema with
  // migrations it does not know); its workspace tables are the same as ours.
  const baseDb = await openBaselineDatabase(baselineEntry);
  keys.set(cases[0]!.name, await workspace(baseDb, 'bench outbox baseline', 0));
  await baseDb.destroy();
  await db.destroy();

  const results = new Map<string, Awaited<ReturnType<typeof measure>>[]>();
  for (let round = 1; round <= ROUNDS; round++) {
    for (const c of cases) {
      process.stderr.write(`round ${round}: ${c.name}\n`);
      const result = await measure(c.entry, c.url, keys.get(c.name)!);
      results.set(c.name, [...(results.get(c.name) ?? []), result]);
    }
  }
  const lines = [
    `Outbox cost on leads.create, ${new Date().toISOString().slice(0, 10)}: ${machineLine(pgVersion)}; medians of ${ROUNDS} interleaved rounds`,
    '',
    `| leads.create, 10 connections | req/s | p50 ms | p99 ms | server CPU µs/request at ${FIXED_RATE} req/s |`,
    '|---|---:|---:|---:|---:|',
    ...cases.map((c) => {
      const r = results.get(c.name)!;
      return `| ${c.name} | ${median(r.map((x) => x.rps))} | ${median(r.map((x) => x.p50)).toFixed(1)} | ${median(r.map((x) => x.p99)).toFixed(1)} | ${Math.round(median(r.map((x) => x.cpuUs)))} |`;
    }),
  ];
  console.log(lines.join('\n'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
