/**
 * Prints EXPLAIN (ANALYZE, BUFFERS) of every query the leads list runs for each benchmark case
 * (first page, pageSize 100, on the large workspace), captured from the real query module, as
 * Markdown.
 * Run after `npm run bench` has loaded the data:
 *   npx tsx bench/explain.ts [BENCH_DATABASE_URL]
 */
import pg from 'pg';
import { createDb } from '../src/db/knex';
import { HotReads } from '../src/db/hot-reads';
import * as leads from '../src/db/leads';
import { toSearchTerm } from '../src/domain/phone';
import { DEFAULT_BENCH_URL, LARGE_WORKSPACE } from './lib/dataset';

async function main(): Promise<void> {
  const url = process.argv[2] ?? process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
  const db = createDb({ url, poolMax: 1 });
  // The captured SQL is in pg's native form ($1, $2, ...): explain it on a plain client.
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const org = await db('organisations').where({ name: LARGE_WORKSPACE }).first('id');
  if (!org) throw new Error('no "bench large 1000000" workspace: run npm run bench first');
  const assignee = await db('leads').where({ org_id: org.id }).whereNotNull('assigned_to_id').groupBy('assigned_to_id')
    .orderByRaw('count(*) desc').first('assigned_to_id');
  const cases: [string, leads.LeadListFilters][] = [
    ['no filter', {}],
    ['status=NO_ANSWER', { status: 'NO_ANSWER' }],
    ['assignedToId (top member)', { assignedToId: assignee.assigned_to_id }],
    ['unassigned', { assignedToId: 'unassigned' }],
    ['search "Patel"', { search: toSearchTerm('Patel') }],
    ['search "020 7946"', { search: toSearchTerm('020 7946') }],
  ];
  const captured: { sql: string; bindings: readonly unknown[] }[] = [];
  const onQuery = (q: { sql: string; bindings?: readonly unknown[] }) => captured.push({ sql: q.sql, bindings: q.bindings ?? [] });
  db.on('query', onQuery);
  for (const [name, filters] of cases) {
    captured.length = 0;
    await leads.listPage(db, HotReads.on(db), org.id, filters, { page: 1, pageSize: 100 }, 'json');
    const queries = [...captured];
    console.log(`\n#### ${name}\n`);
    for (const query of queries) {
      const plan = await client.query(`explain (analyze, buffers) ${query.sql}`, query.bindings as unknown[]);
      console.log('```');
      console.log((plan.rows as { 'QUERY PLAN': string }[]).map((r) => r['QUERY PLAN']).join('\n'));
      console.log('```');
    }
  }
  await client.end();
  await db.destroy();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
