import { tmpdir } from 'node:os';
import { createDb, type Db } from '../../src/db/knex';
import { connectDatabase, type Database } from '../../src/db/connect';
import { HotReads } from '../../src/db/hot-reads';
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

describe("the hot reads on a pool of their own (connect.ts, hot-reads.ts)", () => {
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
    const { db, hotReads } = database;
    const compiled = hotReads.pool;
    expect(compiled).not.toBe(db);
    const sentThere: { sql: string; options?: { name?: string } }[] = [];
    const record = (q: { sql: string; options?: { name?: string } }) => sentThere.push(q);
    compiled.on('query', record);
    try {
      for (let i = 0; i < calls; i += 1) {
        await leads.listPage(db, hotReads, orgId, {}, { page: 1, pageSize: 2 }, 'json');
        expect((await leads.getById(db, hotReads, orgId, leadId))?.name).toBe('Generic Plan');
        expect((await leads.listPage(db, hotReads, orgId, { search: toSearchTerm('Generic') }, { page: 1, pageSize: 2 }, 'leads')).pagination.total).toBe(1);
      }
    } finally {
      compiled.removeListener('query', record);
    }
    // Forced generic plans fail on Citus ("could not create distributed plan"): PostgreSQL chooses.
    expect(await planCacheMode(compiled)).toBe('auto');
    expect(await planCacheMode(db)).toBe('auto');
    // The first page ran there every call, planned each time (its plan depends on the workspace's size).
    const pages = sentThere.filter((q) => q.sql.includes('"lead_json"'));
    expect(pages.length).toBe(calls);
    expect(pages.filter((q) => q.options?.name !== undefined)).toEqual([]);
    const statements = await preparedIn(compiled);
    expect(statements.map((s) => (s.statement.includes('"lead_json"') ? 'page' : 'getById'))).toEqual(['getById']);
    // Prepared once on its connection and run every call.
    for (const s of statements) expect(Number(s.custom_plans) + Number(s.generic_plans)).toBe(calls);
    expect(await preparedIn(db)).toEqual([]);
  });

  it("runs them on a transaction's own connection when given one, where its writes are seen", async () => {
    const rollBack = new Error('roll back');
    const written = database.db.transaction(async (trx) => {
      const { id } = await createLead(trx, orgId, { name: 'Uncommitted' });
      expect((await leads.getById(trx, database.hotReads, orgId, id))?.name).toBe('Uncommitted');
      expect((await leads.listPage(trx, database.hotReads, orgId, {}, { page: 1, pageSize: 100 }, 'leads')).data.map((l) => l.id)).toContain(id);
      // The other pool's session cannot see the uncommitted lead.
      expect(await leads.getById(database.db, database.hotReads, orgId, id)).toBeUndefined();
      throw rollBack;
    });
    // A failed expectation inside would reject with itself, not with rollBack.
    await expect(written).rejects.toBe(rollBack);
  });

  it("adds its connections to the pool gauges of /metrics", async () => {
    const { registry } = createMetrics(database.hotReads.pools());
    // poolMax 1 for each of the two pools.
    expect(await registry.getSingleMetricAsString('db_pool_connections_max')).toMatch(/^db_pool_connections_max 2$/m);
  });

  it('times its own reads there: the statement timeout and 1 s, with no query_timeout for pg to close over', async () => {
    const options = { url: testDatabaseUrl(), poolMax: 1, statementTimeoutMs: 2000, namedStatements: true };
    const main = createDb(options);
    const hotReads = HotReads.onPoolOfTheirOwn(main, options);
    try {
      const connectionOf = (db: Db) => db.client.config.connection as Record<string, unknown>;
      expect(hotReads.readTimeoutMs).toBe(3000);
      expect(connectionOf(hotReads.pool)).toMatchObject({ statement_timeout: 2000 });
      expect(connectionOf(hotReads.pool).query_timeout).toBeUndefined();
      expect(connectionOf(main).query_timeout).toBe(3000);
      expect(hotReads.namedStatements).toBe(true);
      // On the main pool alone, pg's query_timeout times them.
      expect(HotReads.on(main).readTimeoutMs).toBeUndefined();
    } finally {
      await hotReads.close();
      await main.destroy();
    }
  });

  it('has no pool of its own without named statements', async () => {
    const plain = await connectDatabase({ url: testDatabaseUrl(), embeddedDir: tmpdir(), poolMax: 1, migrate: false });
    try {
      expect(plain.hotReads.pool).toBe(plain.db);
      expect(plain.hotReads.pools()).toEqual([plain.db]);
      expect(plain.hotReads.namedStatements).toBe(false);
      expect(await leads.getById(plain.db, plain.hotReads, orgId, leadId)).toBeDefined();
    } finally {
      await plain.close();
    }
  });
});
