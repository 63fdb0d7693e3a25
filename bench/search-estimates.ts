import { openBenchDatabase, ensureWorkspace, DEFAULT_BENCH_URL, LARGE_WORKSPACE, postgresVersion } from './lib/dataset';
import { machineLine } from './lib/report';

// `npx tsx bench/search-estimates.ts [analyzes]`: how PostgreSQL's guess of a common term's
// matches ("patel", in 2.5% of the million-lead workspace) moves from one ANALYZE to the next,
// with the column's default statistics (100 histogram entries) and with the 1,000 the migration
// `20261204120000_leads_search_statistics` sets; and which way the search's first page then
// reads its keys (walking the list's order, or every match by the trigram index, then a sort).
// Leaves the column at 1,000, as the migration does.
const analyzes = Number(process.argv[2] ?? 10);
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
const ORDER = 'next_call_at asc nulls last, created_at desc, id desc';

interface PlanNode { 'Node Type': string; 'Index Name'?: string; 'Plan Rows': number; Plans?: PlanNode[] }
const nodesOf = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];

async function main(): Promise<void> {
  const db = await openBenchDatabase(url);
  const { orgId } = await ensureWorkspace(db, LARGE_WORKSPACE, 1_000_000);
  const pgVersion = await postgresVersion(db);
  const matches = Number((await db.raw("select count(*) as n from leads where org_id = ? and contact_search_lower like '%patel%'", [orgId])).rows[0].n);
  console.log(`${machineLine(pgVersion)}; "patel" is in ${matches} leads of the workspace; ${analyzes} ANALYZEs per setting.\n`);
  console.log('| statistics target | estimated matches, each ANALYZE | first pages walking the list order |');
  console.log('|---|---|---:|');
  for (const target of [-1, 1000]) {
    await db.raw(`alter table leads alter column contact_search_lower set statistics ${target}`);
    const estimates: number[] = [];
    let walks = 0;
    for (let i = 0; i < analyzes; i++) {
      await db.raw('analyze leads (contact_search_lower)');
      const explained = await db.raw(
        `explain (format json) select l.id from leads l where l.org_id = ? and l.contact_search_lower like '%patel%' order by ${ORDER} limit 101`,
        [orgId],
      );
      const nodes = nodesOf((explained.rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan);
      const scan = nodes.find((n) => n['Node Type'].includes('Scan') && !n['Node Type'].startsWith('Bitmap Index'))!;
      estimates.push(scan['Plan Rows']);
      if (nodes.some((n) => n['Index Name'] === 'leads_org_order_idx')) walks += 1;
    }
    console.log(`| ${target === -1 ? 'default (100)' : target} | ${estimates.join(', ')} | ${walks} of ${analyzes} |`);
  }
  await db.destroy();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
