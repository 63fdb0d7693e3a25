import { createTestContext } from '../helpers/test-app';
import { createKey, createLead, createMember, createWorkspace } from '../helpers/factories';
import { rpcPost, resultOf } from '../helpers/rpc';
import { LEAD_FIELDS, expectRpcFailure, issuePaths, snapshot, storedLead } from '../helpers/leads-procedures-helpers';

const ctx = createTestContext();
afterAll(() => ctx.close());

const LONG_AGO = new Date('2020-01-01T00:00:00.000Z');

function assign(key: string, input: unknown) {
  return rpcPost(ctx.app, 'leads.assign', input, key);
}

async function leadOf(orgId: string, overrides: Parameters<typeof createLead>[2] = {}) {
  const lead = await createLead(ctx.db, orgId, overrides);
  await ctx.db('leads').where({ org_id: orgId, id: lead.id }).update({ updated_at: LONG_AGO });
  return { ...lead, updatedAt: LONG_AGO };
}

describe('POST leads.assign', () => {
  it('assigns a member of the workspace: answers the 16-field lead and stores the assignee, advancing updatedAt', async () => {
    const ws = await createWorkspace(ctx.db);
    const member = await createMember(ctx.db, ws.org.id);
    const lead = await leadOf(ws.org.id, { notes: 'keep me', status: 'QUALIFIED' });
    const res = await assign(ws.key, { id: lead.id, assignedToId: member.id });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.result.data.json).sort()).toEqual([...LEAD_FIELDS]);
    const answered = resultOf(res);
    expect(answered).toEqual({ ...lead, assignedToId: member.id, updatedAt: expect.any(Date) });
    expect(answered.updatedAt.getTime()).toBeGreaterThan(LONG_AGO.getTime());
    const row = await storedLead(ctx.db, ws.org.id, lead.id);
    expect(row).toMatchObject({ assigned_to_id: member.id, notes: 'keep me', status: 'QUALIFIED' });
    expect(row.updated_at).toEqual(answered.updatedAt);
  });

  it('unassigns the lead when assignedToId is null', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadOf(ws.org.id, { assignedToId: ws.member.id });
    const res = await assign(ws.key, { id: lead.id, assignedToId: null });
    expect(res.status).toBe(200);
    expect(res.body.result.data.json.assignedToId).toBeNull();
    expect((await storedLead(ctx.db, ws.org.id, lead.id)).assigned_to_id).toBeNull();
  });

  it('reassigns a CONVERTED lead (ownership is not a status change) and keeps it CONVERTED', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadOf(ws.org.id, { status: 'CONVERTED' });
    const res = await assign(ws.key, { id: lead.id, assignedToId: ws.member.id });
    expect(res.status).toBe(200);
    expect(await storedLead(ctx.db, ws.org.id, lead.id)).toMatchObject({ assigned_to_id: ws.member.id, status: 'CONVERTED' });
  });

  it.each([
    ['no assignedToId (null must be said)', {}, [['assignedToId']]],
    ['an empty assignedToId', { assignedToId: '' }, [['assignedToId']]],
    ['a numeric assignedToId', { assignedToId: 7 }, [['assignedToId']]],
    ['an unknown key', { assignedToId: null, status: 'LOST' }, [['status']]],
  ])('answers 400 for %s, changing nothing', async (_label, patch, paths) => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadOf(ws.org.id, { assignedToId: ws.member.id });
    const before = await snapshot(ctx.db, ws.org.id, lead.id);
    const res = await assign(ws.key, { id: lead.id, ...patch });
    expectRpcFailure(res, 'BAD_REQUEST', 'leads.assign');
    expect(issuePaths(res)).toEqual(paths);
    expect(await snapshot(ctx.db, ws.org.id, lead.id)).toEqual(before);
  });

  it('answers 400 naming id when it is missing', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await assign(ws.key, { assignedToId: null });
    expectRpcFailure(res, 'BAD_REQUEST', 'leads.assign');
    expect(issuePaths(res)).toEqual([['id']]);
  });

  it('answers 403 naming leads.update when the key lacks it, changing nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadOf(ws.org.id);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['leads.read', 'leads.create', 'leads.delete'] });
    const before = await snapshot(ctx.db, ws.org.id, lead.id);
    const res = await assign(key, { id: lead.id, assignedToId: ws.member.id });
    expect(expectRpcFailure(res, 'FORBIDDEN', 'leads.assign').message).toBe('missing scope: leads.update');
    expect(await snapshot(ctx.db, ws.org.id, lead.id)).toEqual(before);
  });

  it("answers 404 for another workspace's lead and leaves it unassigned", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const lead = await leadOf(theirs.org.id);
    const before = await snapshot(ctx.db, theirs.org.id, lead.id);
    const res = await assign(ws.key, { id: lead.id, assignedToId: ws.member.id });
    expect(expectRpcFailure(res, 'NOT_FOUND', 'leads.assign').message).toBe(`No lead ${JSON.stringify(lead.id)} in this workspace`);
    expect(await snapshot(ctx.db, theirs.org.id, lead.id)).toEqual(before);
  });

  it('answers 404 naming assignedToId for a member of another workspace, changing nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const lead = await leadOf(ws.org.id, { assignedToId: ws.member.id });
    const before = await snapshot(ctx.db, ws.org.id, lead.id);
    const res = await assign(ws.key, { id: lead.id, assignedToId: theirs.member.id });
    expect(expectRpcFailure(res, 'NOT_FOUND', 'leads.assign').message).toBe(
      `assignedToId: no member ${JSON.stringify(theirs.member.id)} in this workspace`,
    );
    expect(await snapshot(ctx.db, ws.org.id, lead.id)).toEqual(before);
  });
});
