import { createTestContext, type TestContext } from '../helpers/test-app';
import { createWorkspace } from '../helpers/factories';
import { rpcGet, rpcPost, resultOf } from '../helpers/rpc';
import { acrossWorkspaces } from '../helpers/across-workspaces';
import { insertEndpoint } from '../helpers/webhook-fixtures';
import { WORKSPACE_TABLES as CORE_TABLES } from '../../migrations/20261210120000_writes_without_hot_rows';
import { IMPORT_TABLES } from '../../migrations/20261213120000_create_imports';
import { HISTORY_TABLES } from '../../migrations/20261214120200_create_record_history';

const WORKSPACE_TABLES = [...CORE_TABLES, ...IMPORT_TABLES, ...HISTORY_TABLES, 'trash'];

const onCitus = process.env.WSAPI_TEST_CITUS === '1';

let ctx: TestContext;
beforeAll(() => {
  ctx = createTestContext();
});
afterAll(() => ctx.close());

// The rest of the suite's API traffic runs on Citus with every session refusing a statement that
// would touch more than one shard (tests/helpers/global-setup.ts): these show that refusal is on.
(onCitus ? describe : describe.skip)('on a Citus cluster (runs only there)', () => {
  it('distributes every workspace table by workspace in one co-location group, and api_key_secrets to every node', async () => {
    const { rows } = await ctx.db.raw(
      `select table_name::text as name, citus_table_type as type, distribution_column as column, colocation_id from citus_tables order by 1`,
    );
    const byName = Object.fromEntries(rows.map((r: { name: string }) => [r.name, r]));
    expect(byName.organisations).toMatchObject({ type: 'distributed', column: 'id' });
    for (const table of WORKSPACE_TABLES) {
      expect([table, byName[table]?.type, byName[table]?.column, byName[table]?.colocation_id])
        .toEqual([table, 'distributed', 'org_id', byName.organisations.colocation_id]);
    }
    expect(byName.api_key_secrets).toMatchObject({ type: 'reference' });
  });

  it('runs on two workers, and the run refuses a statement across workspaces unless a transaction lifts it', async () => {
    const { rows: workers } = await ctx.db.raw(`select nodename, nodeport from pg_dist_node where noderole = 'primary' and groupid > 0`);
    expect(workers).toHaveLength(2);
    await expect(ctx.db.raw('select count(*) from leads')).rejects.toThrow(/multi-task query about to be executed/);
    const counted = await acrossWorkspaces(ctx.db, (trx) => trx.raw('select count(*)::int as n from leads'));
    expect(counted.rows[0].n).toBeGreaterThanOrEqual(0);
  });

  it('commits every write of a lead or contact, with its events and webhook deliveries, in one phase (no prepared transaction)', async () => {
    // The events' catch-up horizon relies on it: a transaction's rows on the worker must be
    // committed before its id leaves the coordinator's snapshot, which two-phase commit breaks.
    const ws = await createWorkspace(ctx.db);
    await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: 'https://example.com/hook' });
    const prepared = async () => new Set((await ctx.db.raw('select gid from pg_dist_transaction')).rows.map((r: { gid: string }) => r.gid));
    const before = await prepared();
    const call = async (name: string, input: unknown) => resultOf<any>(await rpcPost(ctx.app, name, input, ws.key));
    const lead = await call('leads.create', { name: 'One Phase', phone: '+442079460077', email: 'one@example.com' });
    await call('leads.update', { id: lead.id, name: 'One Phase Two', phones: ['+442079460078'], status: 'CONTACTED', notes: 'n' });
    await call('leads.assign', { id: lead.id, assignedToId: ws.member.id });
    await call('leads.logCall', { id: lead.id, outcome: 'NO_ANSWER' });
    await call('contacts.update', { id: lead.contactId, company: 'Phase Ltd' });
    const other = await call('leads.create', { name: 'Converted', phone: '+442079460079' });
    await call('leads.convert', { id: other.id });
    await call('leads.delete', { id: lead.id });
    const after = await prepared();
    expect([...after].filter((gid) => !before.has(gid))).toEqual([]);
    const { rows } = await ctx.db.raw('select count(*)::int as n from webhook_deliveries where org_id = ?', [ws.org.id]);
    expect(rows[0].n).toBeGreaterThan(10);
  });

  it('serves a workspace whose shards sit on either worker: reads and writes answer from one shard each', async () => {
    // Workspaces hash to shards on both workers; of ten, all land on one with a chance of 1 in 512.
    const placements = new Set<string>();
    for (let i = 0; i < 10; i++) {
      const ws = await createWorkspace(ctx.db);
      const created = resultOf<{ id: string }>(await rpcPost(ctx.app, 'leads.create', { name: `Citus ${i}`, phone: `+4420794600${10 + i}` }, ws.key));
      expect(resultOf<{ id: string }>(await rpcGet(ctx.app, 'leads.getById', { id: created.id }, ws.key)).id).toBe(created.id);
      const { rows } = await ctx.db.raw(
        `select nodeport from citus_shards where table_name = 'leads'::regclass and shardid = get_shard_id_for_distribution_column('leads', ?::text)`,
        [ws.org.id],
      );
      placements.add(String(rows[0].nodeport));
    }
    expect(placements.size).toBe(2);
  });
});
