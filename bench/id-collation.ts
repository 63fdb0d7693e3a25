import { performance } from 'node:perf_hooks';
import { createDb } from '../src/db/knex';
import { openLargeWorkspace, DEFAULT_BENCH_URL } from './lib/dataset';
import { machineLine, median, percentile } from './lib/report';

// `npx tsx bench/id-collation.ts [--rounds 5]`: what the id columns' collation costs PostgreSQL.
// Copies the million-lead workspace's stored JSON (lead_json) twice, keyed by (org_id, lead_id)
// under the database's default collation and under "C", then takes turns: the REST first page's
// join (101 lead ids in the list's order, each looked up in the copy's primary key) timed CALLS
// times, and 20,000 rows inserted into each copy's primary key (rolled back). Prints each round
// and the medians; drops the copies at the end.
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const rounds = Number(arg('--rounds') ?? 5);
const CALLS = 300;
const INSERTS = 20_000;
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
const VARIANTS = { 'database default': 'default', '"C"': 'C' } as const;
type Variant = keyof typeof VARIANTS;
const tableOf = (variant: Variant) => `bench_lead_json_${VARIANTS[variant].toLowerCase()}`;

async function main(): Promise<void> {
  const { orgId, pgVersion } = await openLargeWorkspace(url);
  const db = createDb({ url, poolMax: 1 });
  const variants = Object.keys(VARIANTS) as Variant[];
  const pages: Record<Variant, number[]> = { 'database default': [], '"C"': [] };
  const inserts: Record<Variant, number[]> = { 'database default': [], '"C"': [] };
  try {
    const { rows } = await db.raw<{ rows: { collation: string }[] }>('select datcollate as collation from pg_database where datname = current_database()');
    const collation = rows[0]!.collation;
    for (const variant of variants) {
      const table = tableOf(variant);
      const collate = `collate "${VARIANTS[variant]}"`;
      process.stderr.write(`copying lead_json into ${table}\n`);
      await db.raw(`drop table if exists ${table}`);
      await db.raw(`create table ${table} as select org_id ${collate} as org_id, lead_id ${collate} as lead_id, json from lead_json where org_id = ?`, [orgId]);
      await db.raw(`alter table ${table} add primary key (org_id, lead_id)`);
      await db.raw(`vacuum analyze ${table}`);
    }
    for (let round = 1; round <= rounds; round++) {
      const order = round % 2 === 0 ? [...variants].reverse() : variants;
      for (const variant of order) {
        const table = tableOf(variant);
        const join = VARIANTS[variant] === 'C' ? 'd.lead_id = k.id collate "C"' : 'd.lead_id = k.id';
        const page = `select string_agg(d.json, ',') as json
          from (select id from leads where org_id = ? order by next_call_at, created_at desc, id desc limit 101) k
          join ${table} d on d.org_id = ? and ${join}`;
        const times: number[] = [];
        for (let i = 0; i < CALLS; i++) {
          const started = performance.now();
          await db.raw(page, [orgId, orgId]);
          times.push(performance.now() - started);
        }
        times.sort((a, b) => a - b);
        pages[variant].push(percentile(times, 50));
        const trx = await db.transaction();
        let insertMs = 0;
        try {
          const started = performance.now();
          // New keys spread over the workspace's key range, as new leads' random ids are.
          await trx.raw(`insert into ${table} (org_id, lead_id, json)
            select org_id, 'lead_' || substr(md5(g::text), 1, 22), '{}' from ${table}, generate_series(1, ?) g
            where org_id = ? and lead_id = (select min(lead_id) from ${table} where org_id = ?)`, [INSERTS, orgId, orgId]);
          insertMs = performance.now() - started;
        } finally {
          await trx.rollback();
        }
        inserts[variant].push(insertMs);
        process.stderr.write(`round ${round} ${variant}: page join p50 ${percentile(times, 50).toFixed(3)} ms, ${INSERTS} inserts ${insertMs.toFixed(0)} ms\n`);
      }
    }
    const lines = [
      `${machineLine(pgVersion)}; the database's collation ${collation}; the first page's join timed ${CALLS} times a turn from one session, ${INSERTS} primary-key inserts a turn (rolled back); ${rounds} rounds taking turns; medians of the rounds.`,
      '',
      '| id collation | page join p50 ms | inserts ms |',
      '|---|---:|---:|',
      ...variants.map((v) => `| ${v} | ${median(pages[v]).toFixed(3)} | ${median(inserts[v]).toFixed(0)} |`),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    for (const variant of variants) await db.raw(`drop table if exists ${tableOf(variant)}`);
    await db.destroy();
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
