import { tmpdir } from 'node:os';
import type { Db } from '../../src/db/knex';
import { connectDatabase, type Database } from '../../src/db/connect';
import * as leads from '../../src/db/leads';
import { toSearchTerm } from '../../src/domain/phone';
import { createMetrics } from '../../src/observability/metrics';
import { createTestDb, testDatabaseUrl } from '../helpers/test-app';
import { createLead, createWorkspace } from '../helpers/factories';

interface PreparedRow { statement: string; custom_plans: string; generic_plans: string }

/** The named statements of a one-connection pool's session. */
async function preparedIn(db: Db): Promise<PreparedRow[]> {
  const { rows } = await db.raw<{ rows: PreparedRow[] }>("select statement, custom_plans, generic_plans from pg_prepared_statements where name like 'wsapi\\_%'");
  return rows;
}

const planCacheMode = async (db: Db) => (await db.raw<{ rows: { plan_cache_mode: string }[] }>('show plan_cache_mode')).rows[0]!.plan_cache_mode;

describe('compiled statements on a pool of their own (connect.ts)', () => {
  let setup: Db;
  let orgId: string;
  let leadId: string;
  let database: Database;
  beforeAll(async () => {
    setup = createTestDb();
    const { org } = await createWorkspace(setup);
    orgId = org.id;
    leadId = (await createLead(setup, orgId, { name: 'Generic Plan' })).id;
    database = await connectDatabase({ url: testDatabaseUrl(), embeddedDir: tmpdir(), poolMax: 1, migrate: false, namedStatements: true });
  });
  afterAll(async () => {
    await database.close();
    await setup.destroy();
  });

  it('runs first pages there unnamed and getById there named, while searches stay on the main pool; neither pool forces generic plans', async () => {
    const calls = 7;
    const compiled = database.compiledStatementsDb!;
    const sentThere: { sql: string; options?: { name?: string } }[] = [];
    const record = (q: { sql: string; options?: { name?: string } }) => sentThere.push(q);
    compiled.on('query', record);
    try {
      for (let i = 0; i < calls; i += 1) {
        await leads.listAsJson(database.db, orgId, {}, { page: 1, pageSize: 2 });
        expect((await leads.getById(database.db, orgId, leadId))?.name).toBe('Generic Plan');
        expect((await leads.listAsJson(database.db, orgId, { search: toSearchTerm('Generic') }, { page: 1, pageSize: 2 })).total).toBe(1);
      }
    } finally {
      compiled.removeListener('query', record);
    }
    // Forced generic plans fail on Citus ("could not create distributed plan"): PostgreSQL chooses.
    expect(await planCacheMode(compiled)).toBe('auto');
    expect(await planCacheMode(database.db)).toBe('auto');
    // The first page ran there every call, planned each time (its plan depends on the workspace's size).
    const pages = sentThere.filter((q) => q.sql.includes('"lead_json"'));
    expect(pages.length).toBe(calls);
    expect(pages.filter((q) => q.options?.name !== undefined)).toEqual([]);
    const statements = await preparedIn(compiled);
    expect(statements.map((s) => (s.statement.includes('"lead_json"') ? 'page' : 'getById'))).toEqual(['getById']);
    // Prepared once on its connection and run every call.
    for (const s of statements) expect(Number(s.custom_plans) + Number(s.generic_plans)).toBe(calls);
    expect(await preparedIn(database.db)).toEqual([]);
  });

  it("keeps a transaction's compiled statements on its own connection, where its writes are seen", async () => {
    const rollBack = new Error('roll back');
    const written = database.db.transaction(async (trx) => {
      const { id } = await createLead(trx, orgId, { name: 'Uncommitted' });
      expect((await leads.getById(trx, orgId, id))?.name).toBe('Uncommitted');
      // The other pool's session cannot see the uncommitted lead.
      expect(await leads.getById(database.db, orgId, id)).toBeUndefined();
      throw rollBack;
    });
    // A failed expectation inside would reject with itself, not with rollBack.
    await expect(written).rejects.toBe(rollBack);
  });

  it("adds its connections to the pool gauges of /metrics", async () => {
    const { registry } = createMetrics(database.db);
    // poolMax 1 for each of the two pools.
    expect(await registry.getSingleMetricAsString('db_pool_connections_max')).toMatch(/^db_pool_connections_max 2$/m);
  });

  it('has no pool of its own without named statements', async () => {
    const plain = await connectDatabase({ url: testDatabaseUrl(), embeddedDir: tmpdir(), poolMax: 1, migrate: false });
    try {
      expect(plain.compiledStatementsDb).toBeUndefined();
      expect(await leads.getById(plain.db, orgId, leadId)).toBeDefined();
    } finally {
      await plain.close();
    }
  });
});
