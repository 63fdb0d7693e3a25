import { performance } from 'node:perf_hooks';
import pg from 'pg';
import * as orgsQueries from '../src/db/queries/orgs.queries';
import * as bulkSeedQueries from '../src/db/queries/bulk-seed.queries';
import * as deferredIndexesQueries from '../src/db/queries/deferred-indexes.queries';
import type { Db } from '../src/db/knex';
import { DEFAULT_BENCH_URL, openBenchDatabase, postgresVersion } from './lib/dataset';
import { machineLine } from './lib/report';
import { LEAD_JSON_STORE_BY_JOIN } from '../migrations/20261205120000_store_lead_json';

// `npx tsx bench/seed-profile.ts [--rows 50000]`: where one batch of `seed bulk` spends its time,
// on the benchmark's database (its indexes as full as a million-lead load leaves them). Runs one
// batch's statement under EXPLAIN ANALYZE in a transaction that is rolled back, into a workspace
// made for it and deleted after, and prints the time of each trigger. Then the same with JIT on
// and with the JSON trigger's first body (each as before the change that removed it), and with
// the trigram indexes' pending lists at 64 MB instead of their 512 kB (ALTER INDEX inside the
// rolled-back transaction), to show what their many small merges cost the load: a larger list
// is merged later (by the seed's closing VACUUM), so not all of the difference is saved; and last
// without the secondary indexes, as a load that drops them for itself runs its batches. Vacuums
// the loaded tables at the end, as the seed does, so the database is left as it was found.
// With `--changes`, instead: the batch timed by the client as shipped, with JIT on and with the
// JSON trigger's first body, twice each, vacuumed and checkpointed between.
// With `--indexes`, instead: the batch's time and WAL (not under EXPLAIN) with all of the loaded
// tables' indexes, then with each index that no constraint needs dropped in turn (DROP INDEX
// inside the rolled-back transaction; it locks the table meanwhile, so run it only on the
// benchmark's own database), then with settings the load could change for itself.
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const rows = Number(arg('--rows') ?? 50_000);
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
interface ExplainedPlan {
  Triggers: { 'Trigger Name': string; 'Constraint Name'?: string; Relation: string; Time: number; Calls: number }[];
  'Execution Time': number;
}

const SEARCH_INDEXES = ['leads_org_search_trgm_idx', 'contacts_org_search_trgm_idx'];
const TRIGRAM_INDEXES = [...SEARCH_INDEXES, 'leads_contact_phone_digits_trgm_idx', 'contacts_phone_digits_trgm_idx'];

async function main(): Promise<void> {
  const db = await openBenchDatabase(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const org = await orgsQueries.create(db, { name: 'bench seed profile', tier: 'BUSINESS', features: ['DEVELOPER_API'], phoneRegion: 'GB' });
  try {
    // The batch statement as the seed sends it: captured from a ten-row batch, then widened.
    let batch: { sql: string; bindings: unknown[] } | undefined;
    const capture = (q: { sql: string; bindings: unknown[] }) => { if (q.sql.includes('with params as')) batch = q; };
    db.on('query', capture);
    await bulkSeedQueries.insertBatch(db, { orgId: org.id, memberIds: [], region: 'GB', from: 1, to: 10, total: 1_000_000, phoneOffset: 0 });
    db.removeListener('query', capture);
    const bindings = [...batch!.bindings];
    bindings.splice(-2, 2, 11, 10 + rows);
    // The modes that time whole batches from the client instead of profiling one under EXPLAIN.
    const timedMode = process.argv.includes('--indexes') ? indexCosts : process.argv.includes('--changes') ? changeCosts : undefined;
    const how = timedMode ? 'timed by the client, then vacuumed and checkpointed' : 'under EXPLAIN ANALYZE';
    const lines = [`${machineLine(await postgresVersion(db))}; one batch of ${rows} leads (with contacts, and clients for converted leads) into a new workspace, ${how}, rolled back.`, ''];
    if (timedMode) {
      lines.push(...(await timedMode(client, batch!.sql, bindings)));
      process.stdout.write(`${lines.join('\n')}\n`);
      return;
    }
    for (const [variant, prepare] of [...PROFILE_VARIANTS, await withoutSecondaryIndexes(db)]) {
      await client.query('begin');
      try {
        for (const statement of [...bulkSeedQueries.BATCH_SETTINGS, ...prepare]) await client.query(statement);
        const explained = await client.query(`explain (analyze, format json) ${batch!.sql}`, bindings);
        const plan = (explained.rows[0]['QUERY PLAN'] as ExplainedPlan[])[0]!;
        const { Triggers: triggers, 'Execution Time': executionMs } = plan;
        lines.push(`**${variant}**: ${(executionMs / 1000).toFixed(1)} s in all`, '', '| trigger | on | calls | s |', '|---|---|---:|---:|');
        for (const t of triggers) {
          const name = t['Constraint Name'] ? `foreign key ${t['Constraint Name']}` : t['Trigger Name'];
          lines.push(`| ${name} | ${t.Relation} | ${t.Calls} | ${(t.Time / 1000).toFixed(2)} |`);
        }
        const inTriggers = triggers.reduce((sum, t) => sum + t.Time, 0);
        lines.push(`| (the inserts and their indexes, the rest) | | | ${((executionMs - inTriggers) / 1000).toFixed(2)} |`, '');
      } finally {
        await client.query('rollback');
      }
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await db('organisations').where('id', org.id).delete();
    // The rolled-back rows stay in the tables and their indexes until a vacuum, and the trigram
    // indexes keep the pending entries the 64 MB lists let grow: without this, every later
    // search on this database scanned about 60 MB of them (a rare term took 75 ms instead of 3).
    await bulkSeedQueries.vacuumAnalyse(db);
    await client.end();
    await db.destroy();
  }
}

/**
 * The profile's variants: the batch as shipped, then as it was before each of the last changes to
 * it (inside the rolled-back transaction: the function's first body comes back only there), then
 * with the trigram indexes' pending lists at 64 MB instead of 512 kB.
 */
const PROFILE_VARIANTS: [string, string[]][] = [
  ['as shipped', []],
  ['with JIT, as before 2026-11-25', ['set local jit = on']],
  ['with the JSON trigger\'s first body, a join (migration 20261205120000)', [LEAD_JSON_STORE_BY_JOIN]],
  ['with pending lists of 64 MB', TRIGRAM_INDEXES.map((index) => `alter index ${index} set (gin_pending_list_limit = 65536)`)],
];

/** The batch as a load that drops the secondary indexes for itself runs it (seed bulk on a new database). */
async function withoutSecondaryIndexes(db: Db): Promise<[string, string[]]> {
  const indexes = await deferredIndexesQueries.secondaryIndexesOf(db, bulkSeedQueries.INSERTED_TABLES);
  return ['without the secondary indexes', indexes.map((index) => `drop index ${index.name}`)];
}

/** Settings a load could take for itself (the ALTER INDEXes only inside its own transaction). */
const LOAD_SETTINGS: [string, string[]][] = [
  ['with wal_compression = lz4 (the session\'s full-page images)', ['set local wal_compression = lz4']],
  ['with the search indexes\' pending lists at 4 MB', SEARCH_INDEXES.map((i) => `alter index ${i} set (gin_pending_list_limit = 4096)`)],
  ['with the search indexes\' fastupdate off', SEARCH_INDEXES.map((i) => `alter index ${i} set (fastupdate = off)`)],
  ['with leads_copy_contact_search disabled', ['alter table leads disable trigger leads_copy_contact_search']],
];
/** The loaded tables' indexes that back no constraint (primary keys and foreign keys need theirs). */
const DROPPABLE_INDEXES_SQL = `select c.relname as name, t.relname as on_table, am.amname as method
  from pg_index i join pg_class c on c.oid = i.indexrelid join pg_class t on t.oid = i.indrelid join pg_am am on am.oid = c.relam
  where t.relname in ('leads', 'contacts', 'clients', 'lead_json') and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid)
  order by t.relname, c.relname`;

/** One batch in a rolled-back transaction, after `prepare`: its seconds and the WAL it wrote. */
async function timedBatch(client: pg.Client, sql: string, bindings: unknown[], prepare: string[] = []) {
  await client.query('begin');
  try {
    for (const statement of [...bulkSeedQueries.BATCH_SETTINGS, ...prepare]) await client.query(statement);
    const before = (await client.query('select pg_current_wal_insert_lsn() as lsn')).rows[0].lsn as string;
    const started = performance.now();
    await client.query(sql, bindings);
    const seconds = (performance.now() - started) / 1000;
    const wal = (await client.query('select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1) as bytes', [before])).rows[0].bytes;
    return { seconds, walMb: Number(wal) / 1e6 };
  } finally {
    await client.query('rollback');
    // Each variant starts from the same state: without the vacuum the rolled-back rows stay in
    // every index and the next batch writes more (473 MB of WAL for the first, 1,418 for the
    // last, in this mode's first version); after a checkpoint every batch pays the same
    // full-page images.
    await client.query(`vacuum ${bulkSeedQueries.LOADED_TABLES.join(', ')}`);
    await client.query('checkpoint');
  }
}

async function indexCosts(client: pg.Client, sql: string, bindings: unknown[]): Promise<string[]> {
  const indexes = (await client.query(DROPPABLE_INDEXES_SQL)).rows as { name: string; on_table: string; method: string }[];
  const lines = ['| variant | s | WAL MB | s saved |', '|---|---:|---:|---:|'];
  // The full batch before and after the others, so drift shows; savings are against their mean.
  const first = await timedBatch(client, sql, bindings);
  const rows: [string, { seconds: number; walMb: number }][] = [];
  rows.push(['without every index below', await timedBatch(client, sql, bindings, indexes.map((i) => `drop index ${i.name}`))]);
  for (const index of indexes) rows.push([`without ${index.name} (${index.method}, ${index.on_table})`, await timedBatch(client, sql, bindings, [`drop index ${index.name}`])]);
  for (const [name, settings] of LOAD_SETTINGS) rows.push([name, await timedBatch(client, sql, bindings, settings)]);
  const last = await timedBatch(client, sql, bindings);
  const full = (first.seconds + last.seconds) / 2;
  lines.push(`| every index (first) | ${first.seconds.toFixed(2)} | ${first.walMb.toFixed(0)} | |`, `| every index (last) | ${last.seconds.toFixed(2)} | ${last.walMb.toFixed(0)} | |`);
  for (const [name, r] of rows) lines.push(`| ${name} | ${r.seconds.toFixed(2)} | ${r.walMb.toFixed(0)} | ${(full - r.seconds).toFixed(2)} |`);
  return lines;
}

/** The batch as shipped and as it was before each of the last changes to it, twice over, interleaved. */
async function changeCosts(client: pg.Client, sql: string, bindings: unknown[]): Promise<string[]> {
  const variants = PROFILE_VARIANTS.slice(0, 3);
  const seconds = new Map<string, number[]>(variants.map(([name]) => [name, []]));
  for (let round = 0; round < 2; round++) {
    for (const [name, prepare] of round === 0 ? variants : [...variants].reverse()) seconds.get(name)!.push((await timedBatch(client, sql, bindings, prepare)).seconds);
  }
  const shipped = seconds.get(variants[0]![0])!;
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  return ['| variant | s (two runs) | s more than as shipped |', '|---|---:|---:|',
    ...variants.map(([name]) => `| ${name} | ${seconds.get(name)!.map((v) => v.toFixed(2)).join(', ')} | ${name === variants[0]![0] ? '' : (mean(seconds.get(name)!) - mean(shipped)).toFixed(2)} |`)];
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
