import { createDb, type Db } from '../../src/db/knex';
import { migrateLatest } from '../../src/db/migrator';
import { seedBulk } from '../../src/cli/seed-bulk';
import * as deferredIndexesQueries from '../../src/db/deferred-indexes';
import { INSERTED_TABLES } from '../../src/db/leads/bulk-seed';
import { createTestContext, type TestContext } from '../helpers/test-app';
import { useOwnDatabase } from '../helpers/own-database';
import { createOrg, createKey } from '../helpers/factories';
import { cliOn, cliJsonOn } from '../helpers/cli-harness';
import { bodyOf, listLeads } from '../helpers/leads-rest';

// Dropping indexes changes what every workspace shares, so these run in a database of their own:
// the run's other test files (some of which check plans) never see the indexes go.
describe('seed bulk: dropping the indexes for the load and building them after', () => {
  const url = useOwnDatabase('wsapi_rebuild');
  let ctx: TestContext;
  let db: Db;
  beforeAll(async () => {
    db = createDb({ url, poolMax: 4 });
    await migrateLatest(db);
    ctx = createTestContext({ db });
  });
  afterAll(() => ctx.close());

  /** Every valid index of the loaded tables, as PostgreSQL would write it again. */
  const indexesOfLoadedTables = async () => (await db.raw<{ rows: { name: string; definition: string }[] }>(`
    select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as definition
    from pg_index i join pg_class t on t.oid = i.indrelid
    where t.relname = any(?) and i.indisvalid and i.indisready order by 1`, [[...INSERTED_TABLES]])).rows;
  const deferredNames = async () => (await db('deferred_indexes').orderBy('name').pluck('name')) as string[];

  // First in the file: the database has no workspace's rows yet.
  it('by default drops them only when no other workspace has rows in the loaded tables', async () => {
    const before = await indexesOfLoadedTables();
    // Unique indexes (the external ids') keep rows correct during the load: they stay, as the primary keys do.
    const secondary = before.filter((index) => !/_pkey$/.test(index.name) && !index.definition.startsWith('CREATE UNIQUE'));
    const first = await createOrg(db);
    const second = await createOrg(db);

    const alone = await cliJsonOn(url, 'seed', 'bulk', '--org', first.id, '--leads', '500');
    // Its own rows do not count: a second load into the same workspace drops them again.
    const again = await cliJsonOn(url, 'seed', 'bulk', '--org', first.id, '--leads', '100');
    const beside = await cliJsonOn(url, 'seed', 'bulk', '--org', second.id, '--leads', '300');
    const forced = await cliJsonOn(url, 'seed', 'bulk', '--org', second.id, '--leads', '10', '--keep-indexes');

    expect(secondary.length).toBeGreaterThan(10);
    expect(alone).toMatchObject({ leads: 500, indexesDropped: secondary.length, indexesRebuilt: secondary.length });
    expect(again).toMatchObject({ leads: 100, indexesDropped: secondary.length, indexesRebuilt: secondary.length });
    expect(beside).toMatchObject({ leads: 300, indexesDropped: 0, indexesRebuilt: 0 });
    expect(forced).toMatchObject({ indexesDropped: 0, indexesRebuilt: 0 });
    expect(await indexesOfLoadedTables()).toEqual(before);
    expect(await deferredNames()).toEqual([]);
    const leadsOf = async (orgId: string) => Number((await db('leads').where('org_id', orgId).count({ n: '*' }))[0]!.n);
    expect([await leadsOf(first.id), await leadsOf(second.id)]).toEqual([600, 310]);
  });

  it('loads the leads without the secondary indexes, then builds each again exactly as it was', async () => {
    const before = await indexesOfLoadedTables();
    // Unique indexes (the external ids') keep rows correct during the load: they stay, as the primary keys do.
    const secondary = before.filter((index) => !/_pkey$/.test(index.name) && !index.definition.startsWith('CREATE UNIQUE'));
    const org = await createOrg(db);

    const output = await cliJsonOn(url, 'seed', 'bulk', '--org', org.id, '--leads', '3000', '--rebuild-indexes');

    // Dropped although other workspaces have rows: the flag says so.
    expect(output).toMatchObject({ orgId: org.id, leads: 3000, indexesDropped: secondary.length, indexesRebuilt: secondary.length });
    // The trigram and list indexes are among them, and nothing else was touched.
    expect(secondary.map((index) => index.name)).toEqual(expect.arrayContaining(['leads_org_search_trgm_idx', 'leads_org_order_idx', 'contacts_org_search_trgm_idx']));
    expect(await indexesOfLoadedTables()).toEqual(before);
    expect(await deferredNames()).toEqual([]);
    // The leads' triggers ran as in any load: JSON stored, totals counted, search copies set.
    expect(Number((await db('lead_json').where('org_id', org.id).count({ n: '*' }))[0]!.n)).toBe(3000);
    const { key } = await createKey(db, org.id, { scopes: ['leads.read'] });
    const all = await listLeads(ctx.app, key, { pageSize: 100 });
    expect(all.status).toBe(200);
    expect(bodyOf(all).pagination.total).toBe(3000);
    const first = bodyOf(all).data.find((lead) => lead.primaryEmail !== null)!;
    const found = await listLeads(ctx.app, key, { search: first.primaryEmail!, pageSize: 100 });
    expect(bodyOf(found).data.map((lead) => lead.id)).toContain(first.id);
  });

  it('leaves a list of what it dropped until it is built again: by `indexes rebuild`, or by the next load', async () => {
    const before = await indexesOfLoadedTables();
    const org = await createOrg(db);

    // A load that died after dropping its indexes.
    const dropped = await deferredIndexesQueries.deferSecondaryIndexes(db, INSERTED_TABLES);
    expect(dropped.length).toBeGreaterThan(10);
    expect(await deferredNames()).toEqual(dropped.map((index) => index.name));
    expect((await indexesOfLoadedTables()).length).toBe(before.length - dropped.length);

    const rebuilt = await cliJsonOn(url, 'indexes', 'rebuild');
    expect([...rebuilt.rebuilt].sort()).toEqual(dropped.map((index) => index.name));
    expect(await indexesOfLoadedTables()).toEqual(before);
    expect(await deferredNames()).toEqual([]);
    expect(await cliOn(url, 'indexes', 'rebuild')).toMatchObject({ code: 0, out: 'no index was waiting to be built\n' });

    await deferredIndexesQueries.deferSecondaryIndexes(db, INSERTED_TABLES);
    const loaded = await seedBulk(db, { orgId: org.id, leads: 200 });
    expect(loaded).toMatchObject({ indexesDropped: 0, indexesRebuilt: dropped.length });
    expect(await indexesOfLoadedTables()).toEqual(before);
  });

  it('builds the indexes again when a batch fails, and answers the failure', async () => {
    const before = await indexesOfLoadedTables();
    const org = await createOrg(db);
    const failAfterFirstBatch = (done: number) => {
      if (done > 0) throw new Error('the load stopped here');
    };

    await expect(seedBulk(db, { orgId: org.id, leads: 400, batchSize: 100, concurrency: 1, rebuildIndexes: true, onProgress: failAfterFirstBatch }))
      .rejects.toThrow('the load stopped here');

    expect(await indexesOfLoadedTables()).toEqual(before);
    expect(await deferredNames()).toEqual([]);
    expect(Number((await db('leads').where('org_id', org.id).count({ n: '*' }))[0]!.n)).toBe(100);
  });

  it('keeps an index listed when its build fails, and says why', async () => {
    await db('deferred_indexes').insert({ name: 'leads_broken_idx', table_name: 'leads', definition: 'create index leads_broken_idx on leads (no_such_column)' });

    const run = await cliOn(url, 'indexes', 'rebuild');

    expect(run.code).toBe(1);
    expect(run.err).toBe('failed: create index leads_broken_idx on leads (no_such_column) - column "no_such_column" does not exist\n');
    expect(await deferredNames()).toEqual(['leads_broken_idx']);
    await db('deferred_indexes').where('name', 'leads_broken_idx').delete();
  });
});
