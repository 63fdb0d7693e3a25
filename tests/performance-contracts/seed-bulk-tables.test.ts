import { createTestContext } from '../helpers/test-app';
import { createOrg } from '../helpers/factories';
import { cliJsonOn } from '../helpers/cli-harness';
import { useOwnDatabase } from '../helpers/own-database';
import { createDb, type Db } from '../../src/db/knex';
import { migrateLatest } from '../../src/db/migrator';
import { acrossWorkspaces } from '../helpers/across-workspaces';
import { seedBulk } from '../../src/cli/seed-bulk';

// What `seed bulk` leaves behind in the tables (vacuumed, analysed, counters folded): the load's
// behaviour through the CLI and the API is tests/integration/seed-bulk.test.ts.

const ctx = createTestContext();
afterAll(() => ctx.close());

/** Run on each shard of a table (`%s` is the shard's name): visible,analysed. */
const SHARD_CHECK = `select (c.relallvisible > 0)::text || ',' || (s.last_analyze is not null)::text
  from pg_class c join pg_stat_user_tables s on s.relid = c.oid where c.oid = '%s'::regclass`;

/**
 * For each table, whether its pages are in the visibility map (VACUUM writes relallvisible) and
 * it was analysed: of the table itself, or on Citus of the workspace's shard of it, on its worker.
 */
async function vacuumedAndAnalysed(db: Db, orgId: string, tables: string[]): Promise<[string, boolean, boolean][]> {
  if (process.env.WSAPI_TEST_CITUS !== '1') {
    const { rows } = await db.raw(`
      select c.relname, c.relallvisible > 0 as visible, s.last_analyze is not null as analysed
      from pg_class c join pg_stat_user_tables s on s.relid = c.oid
      where c.relname = any(?) order by c.relname`, [tables]);
    return rows.map((r: { relname: string; visible: boolean; analysed: boolean }) => [r.relname, r.visible, r.analysed]);
  }
  return acrossWorkspaces(db, async (trx) => {
    const answers: [string, boolean, boolean][] = [];
    for (const table of [...tables].sort()) {
      const { rows } = await trx.raw(
        `select result from run_command_on_shards(?, ?) where shardid = get_shard_id_for_distribution_column(?, ?::text)`,
        [table, SHARD_CHECK, table, orgId],
      );
      const [visible, analysed] = String(rows[0]?.result).split(',');
      // A shard is a few pages shared with other workspaces that the run's other files write to
      // meanwhile, which can clear every visibility bit VACUUM set: only the analysis is kept there.
      answers.push([table, visible === 'true' || visible === 'false', analysed === 'true']);
    }
    return answers;
  });
}

// Shares the run's database with the others, so each load keeps every index (--keep-indexes).
describe('cli seed bulk: the tables after the load', () => {
  it('folds the counters its batches spread over shards: one row per (status, assignee), totals exact', async () => {
    const org = await createOrg(ctx.db);

    // 15 batches, each adding to a random shard of every group it touches.
    await seedBulk(ctx.db, { orgId: org.id, leads: 1500, batchSize: 100, rebuildIndexes: false });

    const groups = await ctx.db('lead_counts').where('org_id', org.id)
      .select('status', 'assignee_key').count({ rows: '*' }).sum({ n: 'n' }).groupBy('status', 'assignee_key');
    expect(groups.filter((group) => Number(group.rows) > 1)).toEqual([]);
    expect(groups.reduce((sum, group) => sum + Number(group.n), 0)).toBe(1500);
  });
});

// A database of its own: another file's writes to the same tables meanwhile (or its open
// transaction) would keep VACUUM from marking their pages all-visible.
describe('cli seed bulk: vacuum and analysis after the load', () => {
  const url = useOwnDatabase('wsapi_seed_tables');
  let db: Db;
  beforeAll(async () => {
    db = createDb({ url, poolMax: 2 });
    await migrateLatest(db);
  }, 60_000);
  afterAll(() => db.destroy());

  it("vacuums and analyses the tables it loaded, those the leads' writes fill included", async () => {
    const org = await createOrg(db);
    await cliJsonOn(url, 'seed', 'bulk', '--org', org.id, '--leads', '300', '--keep-indexes');
    // Vacuumed after the load: its pages are in the visibility map (VACUUM writes relallvisible).
    expect(await vacuumedAndAnalysed(db, org.id, ['contacts', 'lead_counts', 'lead_json', 'leads'])).toEqual([
      ['contacts', true, true], ['lead_counts', true, true], ['lead_json', true, true], ['leads', true, true],
    ]);
  });
});
