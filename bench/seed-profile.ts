import pg from 'pg';
import * as orgsQueries from '../src/db/queries/orgs.queries';
import * as bulkSeedQueries from '../src/db/queries/bulk-seed.queries';
import { DEFAULT_BENCH_URL, openBenchDatabase, postgresVersion } from './lib/dataset';
import { machineLine } from './lib/report';

// `npx tsx bench/seed-profile.ts [--rows 50000]`: where one batch of `seed bulk` spends its time,
// on the benchmark's database (its indexes as full as a million-lead load leaves them). Runs one
// batch's statement under EXPLAIN ANALYZE in a transaction that is rolled back, into a workspace
// made for it and deleted after, and prints the time of each trigger. Then the same with the
// trigram indexes' pending lists at 64 MB instead of their 512 kB (ALTER INDEX inside the
// rolled-back transaction), to show what their many small merges cost the load: a larger list
// is merged later (by the seed's closing VACUUM), so not all of the difference is saved. Vacuums
// the loaded tables at the end, as the seed does, so the database is left as it was found.
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const rows = Number(arg('--rows') ?? 50_000);
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
interface ExplainedPlan {
  Triggers: { 'Trigger Name': string; 'Constraint Name'?: string; Relation: string; Time: number; Calls: number }[];
  'Execution Time': number;
}

const TRIGRAM_INDEXES = ['leads_org_search_trgm_idx', 'contacts_org_search_trgm_idx', 'leads_contact_phone_digits_trgm_idx', 'contacts_phone_digits_trgm_idx'];

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
    const lines = [`${machineLine(await postgresVersion(db))}; one batch of ${rows} leads (with contacts, and clients for converted leads) into a new workspace, under EXPLAIN ANALYZE, rolled back.`, ''];
    for (const variant of ['pending lists of 512 kB (as shipped)', 'pending lists of 64 MB']) {
      await client.query('begin');
      try {
        await client.query("set local work_mem = '128MB'");
        if (variant.includes('64 MB')) for (const index of TRIGRAM_INDEXES) await client.query(`alter index ${index} set (gin_pending_list_limit = 65536)`);
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

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
