import { createDb, type Db } from '../src/db/knex';
import { openLargeWorkspace, DEFAULT_BENCH_URL } from './lib/dataset';
import { machineLine } from './lib/report';
import { SearchRounds, searchCases } from './lib/search-rounds';

// `npx tsx bench/search-indexes.ts [--rounds 5]`: the list's search cases on the million-lead
// workspace with the lead search text's trigram index shared by every workspace (as it was) and
// by workspace (org_id inside it, migration 20261206120000). Builds the shared shape beside the
// migrated one, both fresh, so neither is favoured by how it was built; in each turn one
// transaction drops the other shape (rolled back after), and calls the REST list's first page
// (page and, for a full page, its count) one at a time. Shapes take turns, the first alternating.
// Prints the medians of each round's p50 and p95 per call, and the heap pages a common term's
// count reads; drops the shared shape at the end.
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const rounds = Number(arg('--rounds') ?? 5);
const CALLS = 30;
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;

const SHAPES = {
  'shared by all workspaces': {
    create: [
      'create index if not exists bench_shared_search_trgm_idx on leads using gin (contact_search_lower gin_trgm_ops) with (gin_pending_list_limit = 512)',
    ],
    indexes: ['bench_shared_search_trgm_idx'],
  },
  'by workspace': { create: [], indexes: ['leads_org_search_trgm_idx'] },
} as const;
type Shape = keyof typeof SHAPES;

/** Runs `work` in a transaction where only `shape`'s search indexes exist; rolled back. */
async function withOnly<T>(db: Db, shape: Shape, work: (trx: Db) => Promise<T>): Promise<T> {
  const other = (Object.keys(SHAPES) as Shape[]).find((s) => s !== shape)!;
  const trx = await db.transaction();
  try {
    for (const index of SHAPES[other].indexes) await trx.raw(`drop index ${index}`);
    return await work(trx as unknown as Db);
  } finally {
    await trx.rollback();
  }
}

async function main(): Promise<void> {
  const { orgId, sample, pgVersion } = await openLargeWorkspace(url);
  const db = createDb({ url, poolMax: 1 });
  try {
    process.stderr.write('building the shared indexes (about a minute when missing)\n');
    await db.raw("set maintenance_work_mem = '256MB'");
    for (const statement of SHAPES['shared by all workspaces'].create) await db.raw(statement);
    await db.raw('analyze leads');
    const searchRounds = new SearchRounds<Shape>(searchCases(sample), CALLS);
    const heapPages: Partial<Record<Shape, number>> = {};
    for (let round = 1; round <= rounds; round++) {
      const order = (Object.keys(SHAPES) as Shape[]);
      if (round % 2 === 0) order.reverse();
      for (const shape of order) {
        await withOnly(db, shape, async (trx) => {
          await searchRounds.measure(trx, orgId, shape, round);
          const explained = await trx.raw(
            "explain (analyze, buffers, format json) select count(*) from leads l where l.org_id = ? and l.contact_search_lower like '%patel%'",
            [orgId],
          );
          const plan = explained.rows[0]['QUERY PLAN'][0].Plan;
          heapPages[shape] = plan.Plans[0]['Exact Heap Blocks'] + (plan.Plans[0]['Lossy Heap Blocks'] ?? 0);
        });
      }
    }
    const shapes = Object.keys(SHAPES) as Shape[];
    const lines = [
      `${machineLine(pgVersion)}; the REST list's first page (pageSize 100, its count when full) called ${CALLS} times a turn, one at a time, from one session; ${rounds} rounds taking turns; medians of the rounds' p50 and p95, in ms.`,
      '',
      ...searchRounds.table(shapes),
      '',
      `Heap pages read by the count of "patel" (last round): ${shapes.map((s) => `${s} ${heapPages[s]}`).join(', ')}.`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    for (const index of SHAPES['shared by all workspaces'].indexes) await db.raw(`drop index if exists ${index}`);
    await db.destroy();
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
