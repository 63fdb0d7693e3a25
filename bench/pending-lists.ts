import { performance } from 'node:perf_hooks';
import { createDb, type Db } from '../src/db/knex';
import * as bulkSeedQueries from '../src/db/queries/bulk-seed.queries';
import { openLargeWorkspace, DEFAULT_BENCH_URL } from './lib/dataset';
import { machineLine, median } from './lib/report';
import { SearchRounds, searchCases } from './lib/search-rounds';

// `npx tsx bench/pending-lists.ts [--rounds 5] [--writes 600]`: the list's search cases on the
// million-lead workspace with the search indexes' pending lists as `--writes` new leads leave them,
// and merged (`gin_clean_pending_list`, which a periodic job of the service could call; whether
// that would speed searches up is what this measures: BENCHMARKS.md, "Tried and not kept"). Each
// turn writes the leads into the writes workspace in a rolled-back transaction (a GIN pending list
// keeps a rolled-back row's entries until it is merged), calls the REST list's first page (page
// and, for a full page, its count) one at a time, then merges and calls again; the order
// alternates between rounds. Prints the medians of each round's p50 and p95 per call and what a
// merge took; vacuums the tables at the end, so the database is left as found.
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const rounds = Number(arg('--rounds') ?? 5);
const writes = Number(arg('--writes') ?? 600);
const CALLS = 30;
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
const STATES = ['pending', 'merged'] as const;
/** Merges the pending lists of leads' and contacts' GIN indexes; answers the pages merged. */
const MERGE_SQL = `select coalesce(sum(gin_clean_pending_list(i.indexrelid)), 0)::int as pages
  from pg_index i join pg_class c on c.oid = i.indexrelid join pg_am am on am.oid = c.relam
  where i.indrelid = any(array['leads', 'contacts']::regclass[]) and am.amname = 'gin'`;
type State = (typeof STATES)[number];

/** Adds `writes` leads' entries to the pending lists: the rows themselves are rolled back. */
async function fillPendingLists(db: Db, orgId: string): Promise<void> {
  const trx = await db.transaction();
  try {
    await bulkSeedQueries.insertBatch(trx as unknown as Db, {
      orgId, memberIds: [], region: 'GB', from: 1, to: writes, total: writes, phoneOffset: Math.floor(Math.random() * 100_000_000),
    });
  } finally {
    await trx.rollback();
  }
}

async function main(): Promise<void> {
  const { orgId, sample, pgVersion, writes: writesWorkspace } = await openLargeWorkspace(url, { writes: true });
  const db = createDb({ url, poolMax: 1 });
  const searchRounds = new SearchRounds<State>(searchCases(sample), CALLS);
  const merges: { pages: number; ms: number }[] = [];
  const merge = async () => {
    const started = performance.now();
    const pages = ((await db.raw(MERGE_SQL)).rows[0] as { pages: number }).pages;
    return { pages, ms: performance.now() - started };
  };
  try {
    await merge(); // start from empty lists, so a fill never overfills one
    for (let round = 1; round <= rounds; round++) {
      if (round % 2 === 0) await searchRounds.measure(db, orgId, 'merged', round);
      await fillPendingLists(db, writesWorkspace!.orgId);
      await searchRounds.measure(db, orgId, 'pending', round);
      const merged = await merge();
      merges.push(merged);
      process.stderr.write(`round ${round}: merged ${merged.pages} pending pages in ${merged.ms.toFixed(1)} ms\n`);
      if (round % 2 === 1) await searchRounds.measure(db, orgId, 'merged', round);
    }
    const lines = [
      `${machineLine(pgVersion)}; ${writes} leads written (rolled back) before each turn with pending lists; the REST list's first page (pageSize 100, its count when full) called ${CALLS} times a turn, one at a time, from one session; ${rounds} rounds; medians of the rounds' p50 and p95, in ms.`,
      '',
      ...searchRounds.table(STATES),
      '',
      `Merging the pending lists (\`gin_clean_pending_list\`): median ${median(merges.map((m) => m.pages))} pages in ${median(merges.map((m) => m.ms)).toFixed(1)} ms (each round: ${merges.map((m) => `${m.pages} in ${m.ms.toFixed(0)} ms`).join(', ')}).`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await merge();
    await db.raw('vacuum leads, contacts, clients, lead_json');
    await db.destroy();
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
