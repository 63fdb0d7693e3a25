import request from 'supertest';
import { createDb, type Db } from '../../src/db/knex';
import { migrateLatest } from '../../src/db/migrator';
import * as leads from '../../src/db/leads';
import { createTestContext, type TestContext } from '../helpers/test-app';
import { createWorkspace } from '../helpers/factories';
import { useOwnDatabase } from '../helpers/own-database';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

const nodesOf = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];

/**
 * A lead's change in a workspace younger than the table's statistics (made and filled after the
 * last ANALYZE, as one filling a large table always is until autovacuum analyzes it again):
 * PostgreSQL takes the workspace for one row and may read it whole to find the lead. The change's
 * statement (src/db/leads/writes.ts, `changeLeadRow`) must then read the workspace at most once,
 * not once per lead (the lock in a subquery joined by id ran once per lead of the workspace: 21 s
 * for one change at 10,000 leads). Plans hang on statistics, which on Citus each shard keeps for
 * itself: one node only.
 */
const describeOnOneNode = process.env.WSAPI_TEST_CITUS === '1' ? describe.skip : describe;

describeOnOneNode("a lead's change in a workspace the statistics have not seen (EXPLAIN on real PostgreSQL)", () => {
  const url = useOwnDatabase('wsapi_young_stats');
  let db: Db;
  let ctx: TestContext;
  let young: Awaited<ReturnType<typeof createWorkspace>>;
  const LEADS = 2000;

  beforeAll(async () => {
    db = createDb({ url, poolMax: 4, onWarning: () => undefined });
    await migrateLatest(db);
    // Statistics that know one workspace of a few leads, then a workspace they have never seen.
    const known = await createWorkspace(db);
    for (let i = 0; i < 20; i++) await leads.createLead(db, known.org.id, newLeadFor(i));
    await db.raw('analyze leads; analyze contacts');
    young = await createWorkspace(db);
    for (let i = 0; i < LEADS; i++) await leads.createLead(db, young.org.id, newLeadFor(i));
    ctx = createTestContext({ db });
  }, 120_000);

  afterAll(() => db.destroy());

  it('reads the workspace at most once: every scan of leads and contacts runs once', async () => {
    const lead = (await db('leads').where('org_id', young.org.id).orderBy('id').first('id')) as { id: string };
    const statements: { sql: string; bindings: unknown[] }[] = [];
    const record = (query: { sql: string; bindings: unknown[] }) => statements.push(query);
    db.on('query', record);
    try {
      const res = await request(ctx.app).post('/api/v1/rpc/leads.update').set('Authorization', `Bearer ${young.key}`)
        .send({ json: { id: lead.id, name: 'Renamed Person', status: 'CONTACTED' } });
      expect(res.status).toBe(200);
    } finally {
      db.removeListener('query', record);
    }
    const change = statements.find((s) => s.sql.includes('for update') && s.sql.includes('update leads l set'));
    expect(change).toBeDefined();
    const scans = nodesOf(await explained(db, change!)).filter((n) => n['Relation Name'] === 'leads' || n['Relation Name'] === 'contacts');
    expect(scans.length).toBeGreaterThan(0);
    expect(scans.map((n) => [n['Node Type'], n['Index Name'] ?? n['Relation Name'], n['Actual Loops']]))
      .toEqual(scans.map((n) => [n['Node Type'], n['Index Name'] ?? n['Relation Name'], 1]));
  });
});

/** The plan of `statement` as it ran (its $n placeholders as the driver sent them), its writes rolled back. */
async function explained(db: Db, statement: { sql: string; bindings: unknown[] }): Promise<PlanNode> {
  const connection = await db.client.acquireConnection();
  try {
    await connection.query('begin');
    const { rows } = await connection.query(`explain (analyze, format json) ${statement.sql}`, statement.bindings);
    return (rows as { 'QUERY PLAN': [{ Plan: PlanNode }] }[])[0]!['QUERY PLAN'][0].Plan;
  } finally {
    await connection.query('rollback');
    await db.client.releaseConnection(connection);
  }
}

function newLeadFor(i: number): leads.Lead {
  return leads.newLead(
    { name: `Person ${i}`, phones: [`+4420794${String(60000 + i).padStart(5, '0')}`], emails: [], company: null },
    { status: 'NOT_CONTACTED', source: null, notes: null, nextCallAt: null, assignedToId: null, clientId: null, externalId: null },
  ).lead;
}
