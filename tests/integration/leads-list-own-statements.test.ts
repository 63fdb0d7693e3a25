import request from 'supertest';
import { createTestContext, createTestDb, type TestContext } from '../helpers/test-app';
import { createWorkspace, createMember } from '../helpers/factories';
import { seedLeads } from '../helpers/seed-leads';

// A workspace listed with 1,000 leads or more gets page statements of its own (its id written
// into their text, src/db/leads/compiled-page.ts). They must answer exactly what the statement
// planned on every call answers, for every filter and for keyset pages
// (tests/performance-contracts/leads-list-plans.test.ts checks the statements themselves).

describe('GET /api/v1/leads in a workspace with statements of its own', () => {
  let ctx: TestContext;
  let key: string;
  let member: string;
  beforeAll(async () => {
    // One connection, so the named statements and their cached plans are the ones each call meets.
    ctx = createTestContext({ db: createTestDb(1) });
    const ws = await createWorkspace(ctx.db);
    key = ws.key;
    member = (await createMember(ctx.db, ws.org.id)).id;
    await seedLeads(ctx.db, ws.org.id, 'own', 1_100, [ws.member.id, member]);
  }, 120_000);
  afterAll(() => ctx.close());

  const list = (query: string) => request(ctx.app).get(`/api/v1/leads?${query}`).set('Authorization', `Bearer ${key}`).expect(200);

  it.each([
    ['no filter', 'pageSize=50'],
    ['status', 'status=CONTACTED&pageSize=50'],
    // A status is written into its statement's text too: another status is another statement.
    ['another status', 'status=QUALIFIED&pageSize=50'],
    ['assignedToId', () => `assignedToId=${member}&pageSize=50`],
    ['unassigned', 'assignedToId=unassigned&pageSize=50'],
  ])('answers the same first page and cursor page (%s) on every call, before and after the workspace is known', async (_label, query) => {
    const q = typeof query === 'function' ? query() : query;
    // The first call is planned on its own (the workspace's size is not known yet); the later ones
    // run the workspace's own statement, past the calls after which PostgreSQL keeps a generic plan.
    const first = await list(q);
    expect(first.body.data).toHaveLength(50);
    for (let i = 0; i < 7; i++) expect((await list(q)).text).toBe(first.text);
    const cursor = first.body.pagination.nextCursor as string;
    const next = await list(`${q}&cursor=${encodeURIComponent(cursor)}`);
    for (let i = 0; i < 7; i++) expect((await list(`${q}&cursor=${encodeURIComponent(cursor)}`)).text).toBe(next.text);
    const ids = [...first.body.data, ...next.body.data].map((l: { id: string }) => l.id);
    expect(new Set(ids).size).toBe(100);
  });
});
