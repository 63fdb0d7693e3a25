import { createTestContext } from '../helpers/test-app';
import { createWorkspace, createLead } from '../helpers/factories';
import { bodyOf, idsOf, listLeads, setCreatedAt } from '../helpers/leads-rest';

const ctx = createTestContext();
afterAll(() => ctx.close());

async function workspaceWithLeads(count: number) {
  const ws = await createWorkspace(ctx.db);
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) ids.push((await createLead(ctx.db, ws.org.id)).id);
  return { ws, ids };
}

describe('GET /api/v1/leads pagination defaults and page sizes', () => {
  // One workspace of 101 leads, only read by these tests.
  let key: string;
  let allIds: string[];
  beforeAll(async () => {
    const { ws, ids } = await workspaceWithLeads(101);
    key = ws.key;
    allIds = ids;
  });

  it('answers page 1 of 50 leads when page and pageSize are omitted', async () => {
    const res = await listLeads(ctx.app, key);

    expect(res.status).toBe(200);
    expect(idsOf(res)).toHaveLength(50);
    expect(res.body.pagination).toEqual({ page: 1, pageSize: 50, total: 101, totalPages: 3, hasNextPage: true, hasPrevPage: false, nextCursor: expect.any(String) });
  });

  it('answers the 1 remaining lead on the last page of the default size', async () => {
    const res = await listLeads(ctx.app, key, { page: 3 });

    expect(res.status).toBe(200);
    expect(idsOf(res)).toHaveLength(1);
    expect(res.body.pagination).toEqual({ page: 3, pageSize: 50, total: 101, totalPages: 3, hasNextPage: false, hasPrevPage: true, nextCursor: null });
  });

  it('answers one lead per page with pageSize=1', async () => {
    const res = await listLeads(ctx.app, key, { pageSize: 1, page: 2 });

    expect(res.status).toBe(200);
    expect(idsOf(res)).toHaveLength(1);
    expect(res.body.pagination).toEqual({ page: 2, pageSize: 1, total: 101, totalPages: 101, hasNextPage: true, hasPrevPage: true, nextCursor: expect.any(String) });
  });

  it('answers 100 leads with pageSize=100, the maximum', async () => {
    const res = await listLeads(ctx.app, key, { pageSize: 100 });

    expect(res.status).toBe(200);
    expect(idsOf(res)).toHaveLength(100);
    expect(res.body.pagination).toEqual({ page: 1, pageSize: 100, total: 101, totalPages: 2, hasNextPage: true, hasPrevPage: false, nextCursor: expect.any(String) });
  });

  it.each([101, 1000])('clamps pageSize=%i to 100 and says so in pagination.pageSize', async (pageSize) => {
    const res = await listLeads(ctx.app, key, { pageSize });

    expect(res.status).toBe(200);
    expect(idsOf(res)).toHaveLength(100);
    expect(res.body.pagination).toEqual({ page: 1, pageSize: 100, total: 101, totalPages: 2, hasNextPage: true, hasPrevPage: false, nextCursor: expect.any(String) });
  });

  it('continues a clamped pageSize on page 2 with the 101st lead', async () => {
    const first = await listLeads(ctx.app, key, { pageSize: 1000 });
    const second = await listLeads(ctx.app, key, { pageSize: 1000, page: 2 });

    expect(second.status).toBe(200);
    expect(idsOf(second)).toHaveLength(1);
    expect(second.body.pagination).toEqual({ page: 2, pageSize: 100, total: 101, totalPages: 2, hasNextPage: false, hasPrevPage: true, nextCursor: null });
    expect(new Set([...idsOf(first), ...idsOf(second)])).toEqual(new Set(allIds));
  });
});

describe('GET /api/v1/leads pagination edges', () => {
  it('answers an empty page past the end with hasNextPage false, hasPrevPage true and the exact total', async () => {
    const { ws } = await workspaceWithLeads(3);

    const res = await listLeads(ctx.app, ws.key, { page: 5, pageSize: 2 });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [],
      pagination: { page: 5, pageSize: 2, total: 3, totalPages: 2, hasNextPage: false, hasPrevPage: true, nextCursor: null },
    });
  });

  it('answers total 0, totalPages 1 and no next or previous page for a workspace without leads', async () => {
    const ws = await createWorkspace(ctx.db);

    const res = await listLeads(ctx.app, ws.key);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [],
      pagination: { page: 1, pageSize: 50, total: 0, totalPages: 1, hasNextPage: false, hasPrevPage: false, nextCursor: null },
    });
  });

  it('splits 7 leads into exactly 3 pages of size 3, the last holding 1 lead', async () => {
    const { ws, ids } = await workspaceWithLeads(7);

    const pages = [];
    for (const page of [1, 2, 3]) pages.push(await listLeads(ctx.app, ws.key, { page, pageSize: 3 }));

    expect(pages.map((p) => p.status)).toEqual([200, 200, 200]);
    expect(pages.map((p) => idsOf(p).length)).toEqual([3, 3, 1]);
    expect(pages.map((p) => bodyOf(p).pagination)).toEqual([
      { page: 1, pageSize: 3, total: 7, totalPages: 3, hasNextPage: true, hasPrevPage: false, nextCursor: expect.any(String) },
      { page: 2, pageSize: 3, total: 7, totalPages: 3, hasNextPage: true, hasPrevPage: true, nextCursor: expect.any(String) },
      { page: 3, pageSize: 3, total: 7, totalPages: 3, hasNextPage: false, hasPrevPage: true, nextCursor: null },
    ]);
    expect(pages.flatMap((p) => idsOf(p)).sort()).toEqual([...ids].sort());
  });

  it('answers exactly one full page, with no next page, when the total is a multiple of pageSize', async () => {
    const { ws } = await workspaceWithLeads(4);

    const res = await listLeads(ctx.app, ws.key, { pageSize: 4 });
    const after = await listLeads(ctx.app, ws.key, { pageSize: 4, page: 2 });

    expect(idsOf(res)).toHaveLength(4);
    expect(res.body.pagination).toEqual({ page: 1, pageSize: 4, total: 4, totalPages: 1, hasNextPage: false, hasPrevPage: false, nextCursor: null });
    expect(after.body).toEqual({
      data: [],
      pagination: { page: 2, pageSize: 4, total: 4, totalPages: 1, hasNextPage: false, hasPrevPage: true, nextCursor: null },
    });
  });

  it('returns every lead exactly once, in list order, on a walk page by page until hasNextPage is false', async () => {
    const ws = await createWorkspace(ctx.db);
    const sameCreatedAt = new Date('2024-04-04T04:04:04.000Z');
    const ids: string[] = [];
    for (let i = 0; i < 23; i += 1) {
      // Few distinct schedules and one creation time: the order leans on its id tiebreak.
      const nextCallAt = i % 3 === 0 ? null : new Date(Date.UTC(2030, 0, 1 + (i % 2)));
      const lead = await createLead(ctx.db, ws.org.id, { nextCallAt });
      await setCreatedAt(ctx.db, ws.org.id, lead.id, sameCreatedAt);
      ids.push(lead.id);
    }

    const walked: string[] = [];
    let page = 1;
    let requests = 0;
    for (;;) {
      const res = await listLeads(ctx.app, ws.key, { page, pageSize: 5 });
      expect(res.status).toBe(200);
      requests += 1;
      walked.push(...idsOf(res));
      if (!bodyOf(res).pagination.hasNextPage || requests > 10) break;
      page += 1;
    }
    const whole = await listLeads(ctx.app, ws.key, { pageSize: 100 });

    expect(requests).toBe(5);
    expect(walked).toHaveLength(23);
    expect(new Set(walked).size).toBe(23);
    expect([...walked].sort()).toEqual([...ids].sort());
    expect(walked).toEqual(idsOf(whole));
  });
});
