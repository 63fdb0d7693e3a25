import { createTestContext } from '../helpers/test-app';
import { createWorkspace, createMember, createLead, unique } from '../helpers/factories';
import { bodyOf, idsOf, listLeads } from '../helpers/leads-rest';

const ctx = createTestContext();
afterAll(() => ctx.close());

const sorted = (ids: string[]) => [...ids].sort();

describe('GET /api/v1/leads status filter', () => {
  it('answers only leads in exactly that status, total counting only them', async () => {
    const ws = await createWorkspace(ctx.db);
    const contacted = [
      (await createLead(ctx.db, ws.org.id, { status: 'CONTACTED' })).id,
      (await createLead(ctx.db, ws.org.id, { status: 'CONTACTED' })).id,
    ];
    await createLead(ctx.db, ws.org.id, { status: 'NOT_CONTACTED' });
    await createLead(ctx.db, ws.org.id, { status: 'QUALIFIED' });

    const res = await listLeads(ctx.app, ws.key, { status: 'CONTACTED' });

    expect(res.status).toBe(200);
    expect(sorted(idsOf(res))).toEqual(sorted(contacted));
    expect(bodyOf(res).data.every((l) => l.status === 'CONTACTED')).toBe(true);
    expect(res.body.pagination).toEqual({ page: 1, pageSize: 50, total: 2, totalPages: 1, hasNextPage: false, hasPrevPage: false, nextCursor: null });
  });

  it('filters before paginating: total and totalPages count matching leads only', async () => {
    const ws = await createWorkspace(ctx.db);
    const lost: string[] = [];
    for (let i = 0; i < 5; i += 1) lost.push((await createLead(ctx.db, ws.org.id, { status: 'LOST' })).id);
    for (let i = 0; i < 4; i += 1) await createLead(ctx.db, ws.org.id, { status: 'BUSY' });

    const pages = [];
    for (const page of [1, 2, 3]) pages.push(await listLeads(ctx.app, ws.key, { status: 'LOST', pageSize: 2, page }));

    expect(pages.map((p) => p.status)).toEqual([200, 200, 200]);
    expect(pages.map((p) => idsOf(p).length)).toEqual([2, 2, 1]);
    expect(bodyOf(pages[0]!).pagination).toEqual({ page: 1, pageSize: 2, total: 5, totalPages: 3, hasNextPage: true, hasPrevPage: false, nextCursor: expect.any(String) });
    expect(bodyOf(pages[2]!).pagination).toMatchObject({ total: 5, totalPages: 3, hasNextPage: false });
    expect(sorted(pages.flatMap((p) => idsOf(p)))).toEqual(sorted(lost));
  });

  it('answers an empty page with total 0 and totalPages 1 when no lead has the status', async () => {
    const ws = await createWorkspace(ctx.db);
    await createLead(ctx.db, ws.org.id, { status: 'CONTACTED' });

    const res = await listLeads(ctx.app, ws.key, { status: 'WRONG_NUMBER' });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [],
      pagination: { page: 1, pageSize: 50, total: 0, totalPages: 1, hasNextPage: false, hasPrevPage: false, nextCursor: null },
    });
  });
});

describe('GET /api/v1/leads assignedToId filter', () => {
  async function assignedWorkspace() {
    const ws = await createWorkspace(ctx.db);
    const other = await createMember(ctx.db, ws.org.id);
    const mine = [
      (await createLead(ctx.db, ws.org.id, { assignedToId: ws.member.id })).id,
      (await createLead(ctx.db, ws.org.id, { assignedToId: ws.member.id })).id,
    ];
    const theirs = (await createLead(ctx.db, ws.org.id, { assignedToId: other.id })).id;
    const unassigned = [
      (await createLead(ctx.db, ws.org.id, { assignedToId: null })).id,
      (await createLead(ctx.db, ws.org.id, { assignedToId: null })).id,
    ];
    return { ws, other, mine, theirs, unassigned };
  }

  it('answers only the leads assigned to that member', async () => {
    const { ws, mine } = await assignedWorkspace();

    const res = await listLeads(ctx.app, ws.key, { assignedToId: ws.member.id });

    expect(res.status).toBe(200);
    expect(sorted(idsOf(res))).toEqual(sorted(mine));
    expect(bodyOf(res).data.every((l) => l.assignedToId === ws.member.id)).toBe(true);
    expect(bodyOf(res).pagination.total).toBe(2);
  });

  it('answers only the leads without an assignee for assignedToId=unassigned', async () => {
    const { ws, unassigned } = await assignedWorkspace();

    const res = await listLeads(ctx.app, ws.key, { assignedToId: 'unassigned' });

    expect(res.status).toBe(200);
    expect(sorted(idsOf(res))).toEqual(sorted(unassigned));
    expect(bodyOf(res).data.map((l) => l.assignedToId)).toEqual([null, null]);
    expect(bodyOf(res).pagination.total).toBe(2);
  });

  it("answers 200 with an empty page for another workspace's member id, even though that member has leads", async () => {
    const { ws } = await assignedWorkspace();
    const foreign = await createWorkspace(ctx.db);
    await createLead(ctx.db, foreign.org.id, { assignedToId: foreign.member.id });

    const res = await listLeads(ctx.app, ws.key, { assignedToId: foreign.member.id });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [],
      pagination: { page: 1, pageSize: 50, total: 0, totalPages: 1, hasNextPage: false, hasPrevPage: false, nextCursor: null },
    });
  });

  it('combines status, assignedToId and search: only leads matching all three are answered and counted', async () => {
    const { ws, other } = await assignedWorkspace();
    const tag = unique('combo');
    const match = await createLead(ctx.db, ws.org.id, { status: 'QUALIFIED', assignedToId: other.id, company: `${tag} Ltd` });
    await createLead(ctx.db, ws.org.id, { status: 'CONTACTED', assignedToId: other.id, company: `${tag} Ltd` });
    await createLead(ctx.db, ws.org.id, { status: 'QUALIFIED', assignedToId: ws.member.id, company: `${tag} Ltd` });
    await createLead(ctx.db, ws.org.id, { status: 'QUALIFIED', assignedToId: other.id, company: 'Unrelated Ltd' });
    await createLead(ctx.db, ws.org.id, { status: 'QUALIFIED', assignedToId: null, company: `${tag} Ltd` });

    const res = await listLeads(ctx.app, ws.key, { status: 'QUALIFIED', assignedToId: other.id, search: tag });
    const unassigned = await listLeads(ctx.app, ws.key, { status: 'QUALIFIED', assignedToId: 'unassigned', search: tag });

    expect(res.status).toBe(200);
    expect(idsOf(res)).toEqual([match.id]);
    expect(bodyOf(res).pagination.total).toBe(1);
    expect(unassigned.status).toBe(200);
    expect(bodyOf(unassigned).pagination.total).toBe(1);
    expect(bodyOf(unassigned).data[0]).toMatchObject({ status: 'QUALIFIED', assignedToId: null, company: `${tag} Ltd` });
  });
});

describe('GET /api/v1/leads tenancy', () => {
  it("answers only the caller's workspace leads, never another workspace's", async () => {
    const a = await createWorkspace(ctx.db);
    const b = await createWorkspace(ctx.db);
    const aIds = [(await createLead(ctx.db, a.org.id)).id, (await createLead(ctx.db, a.org.id)).id];
    const bIds = [
      (await createLead(ctx.db, b.org.id)).id,
      (await createLead(ctx.db, b.org.id)).id,
      (await createLead(ctx.db, b.org.id)).id,
    ];

    const resA = await listLeads(ctx.app, a.key);
    const resB = await listLeads(ctx.app, b.key);

    expect(resA.status).toBe(200);
    expect(sorted(idsOf(resA))).toEqual(sorted(aIds));
    expect(bodyOf(resA).pagination.total).toBe(2);
    expect(resB.status).toBe(200);
    expect(sorted(idsOf(resB))).toEqual(sorted(bIds));
    expect(bodyOf(resB).pagination.total).toBe(3);
  });

  it("does not reach another workspace's leads through a search or status that matches them", async () => {
    const a = await createWorkspace(ctx.db);
    const b = await createWorkspace(ctx.db);
    const shared = unique('SharedName');
    const own = await createLead(ctx.db, a.org.id, { name: `${shared} A`, status: 'BUSY' });
    await createLead(ctx.db, b.org.id, { name: `${shared} B`, status: 'BUSY' });
    await createLead(ctx.db, b.org.id, { name: `${shared} C`, status: 'BUSY' });

    const bySearch = await listLeads(ctx.app, a.key, { search: shared });
    const byStatus = await listLeads(ctx.app, a.key, { status: 'BUSY' });

    expect(bySearch.status).toBe(200);
    expect(idsOf(bySearch)).toEqual([own.id]);
    expect(bodyOf(bySearch).pagination.total).toBe(1);
    expect(idsOf(byStatus)).toEqual([own.id]);
    expect(bodyOf(byStatus).pagination.total).toBe(1);
  });
});
