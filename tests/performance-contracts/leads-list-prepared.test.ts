import { createDb, type Db } from '../../src/db/knex';
import { HotReads } from '../../src/db/hot-reads';
import { createTestDb, testDatabaseUrl } from '../helpers/test-app';
import { createLead, createWorkspace } from '../helpers/factories';
import * as leads from '../../src/db/leads';
import { toSearchTerm } from '../../src/domain/phone';

/** The named statements of the pool's one session (a one-connection pool: every query shares it). */
async function preparedTexts(db: Db): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { name: string; statement: string }[] }>('select name, statement from pg_prepared_statements');
  return rows.filter((row) => row.name.startsWith('wsapi_')).map((row) => row.statement);
}

describe('leads queries as named prepared statements', () => {
  let setup: Db;
  let orgId: string;
  let leadIds: string[];
  beforeAll(async () => {
    setup = createTestDb();
    const { org } = await createWorkspace(setup);
    orgId = org.id;
    leadIds = [];
    for (let i = 0; i < 5; i += 1) leadIds.push((await createLead(setup, orgId, { name: `Prepared ${i}`, nextCallAt: i % 2 ? new Date(Date.UTC(2030, 0, i + 1)) : null })).id);
  });
  afterAll(() => setup.destroy());

  it('prepares getById once per session; never a page, whose plan depends on its workspace\'s size', async () => {
    const db = createDb({ url: testDatabaseUrl(), poolMax: 1, namedStatements: true });
    try {
      const hotReads = HotReads.on(db);
      for (let i = 0; i < 3; i += 1) {
        await leads.listPage(db, hotReads, orgId, {}, { page: 1, pageSize: 2 }, 'json');
        await leads.listPage(db, hotReads, orgId, { status: 'NOT_CONTACTED' }, { page: 1, pageSize: 2 }, 'leads');
        await leads.listPage(db, hotReads, orgId, { assignedToId: 'unassigned' }, { page: 1, pageSize: 2 }, 'json');
        await leads.listPage(db, hotReads, orgId, { assignedToId: 'unassigned' }, { page: 2, pageSize: 2 }, 'json');
        await leads.getById(db, hotReads, orgId, leadIds[0]!);
        await leads.listPage(db, hotReads, orgId, { search: toSearchTerm('Prepared') }, { page: 1, pageSize: 2 }, 'json');
      }
      const texts = await preparedTexts(db);
      expect(texts.filter((t) => /"l"\."id" = \$\d limit \$\d/.test(t)).length).toBe(1);
      // No page of any kind (src/db/leads/compiled-page.ts), nor their totals, which a page reads in the same statement.
      expect(texts.filter((t) => t.includes('"lead_json"') || t.includes('lead_counts') || /ilike|offset/i.test(t))).toEqual([]);
      // Each text prepared once, however often it ran.
      expect(new Set(texts).size).toBe(texts.length);
    } finally {
      await db.destroy();
    }
  });

  it('answers the same pages and cursors prepared as planned each time', async () => {
    const plain = createDb({ url: testDatabaseUrl(), poolMax: 1 });
    const named = createDb({ url: testDatabaseUrl(), poolMax: 1, namedStatements: true });
    try {
      const walk = async (db: Db) => {
        const hotReads = HotReads.on(db);
        const pages: unknown[] = [];
        let request: leads.LeadsPageRequest = { page: 1, pageSize: 2 };
        for (let i = 0; i < 4; i += 1) {
          const page = (await leads.listPage(db, hotReads, orgId, {}, request, 'json')).join('');
          pages.push(page);
          const { nextCursor } = (JSON.parse(page) as { pagination: { nextCursor: string | null } }).pagination;
          if (!nextCursor) break;
          request = { cursor: nextCursor, pageSize: 2 };
        }
        return pages;
      };
      const expected = await walk(plain);
      expect(expected.length).toBe(3);
      expect(await walk(named)).toEqual(expected);
      expect(await walk(named)).toEqual(expected);
      expect(await preparedTexts(plain)).toEqual([]);
    } finally {
      await plain.destroy();
      await named.destroy();
    }
  });
});
