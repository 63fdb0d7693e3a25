import { createTestContext } from '../helpers/test-app';
import { createKey, createLead, createWorkspace } from '../helpers/factories';
import { rpcGet, rpcPost, resultOf } from '../helpers/rpc';
import { expectRpcFailure, issuePaths } from '../helpers/leads-procedures-helpers';
import { insertCall } from '../helpers/leads-actions-fixtures';

const ctx = createTestContext();
afterAll(() => ctx.close());

function getCalls(key: string, input: unknown) {
  return rpcGet(ctx.app, 'leads.getCalls', input, key);
}

const T1 = new Date('2026-03-01T10:00:00.000Z');
const T2 = new Date('2026-03-02T10:00:00.000Z');

/** A lead with three calls (two at the same instant, ordered by id) and a call on another lead. */
async function leadWithCalls() {
  const ws = await createWorkspace(ctx.db);
  const lead = await createLead(ctx.db, ws.org.id);
  const other = await createLead(ctx.db, ws.org.id);
  const first = await insertCall(ctx.db, ws.org.id, lead.id, 'NO_ANSWER', T1, { notes: 'first' });
  const tiedA = await insertCall(ctx.db, ws.org.id, lead.id, 'BUSY', T2);
  const tiedB = await insertCall(ctx.db, ws.org.id, lead.id, 'CONTACTED', T2);
  await insertCall(ctx.db, ws.org.id, other.id, 'CONTACTED', T2);
  const [newer, older] = [tiedA, tiedB].sort().reverse();
  return { ws, lead, order: [newer, older, first] };
}

describe('GET leads.getCalls', () => {
  it("answers the lead's calls newest first (ties by id, descending) in the pagination wrapper", async () => {
    const { ws, lead, order } = await leadWithCalls();
    const res = await getCalls(ws.key, { id: lead.id });
    expect(res.status).toBe(200);
    const page = resultOf(res);
    expect(page.pagination).toEqual({ page: 1, pageSize: 50, total: 3, totalPages: 1, hasNextPage: false, hasPrevPage: false });
    expect(page.data.map((c: { id: string }) => c.id)).toEqual(order);
    expect(page.data[2]).toEqual({
      id: order[2], leadId: lead.id, outcome: 'NO_ANSWER', notes: 'first', nextCallAt: null, loggedBy: 'key_fixture', createdAt: T1,
    });
  });

  it('pages with page and pageSize, clamping pageSize to 100', async () => {
    const { ws, lead, order } = await leadWithCalls();
    const first = resultOf(await getCalls(ws.key, { id: lead.id, pageSize: 2 }));
    const second = resultOf(await getCalls(ws.key, { id: lead.id, pageSize: 2, page: 2 }));
    expect(first.data.map((c: { id: string }) => c.id)).toEqual(order.slice(0, 2));
    expect(first.pagination).toEqual({ page: 1, pageSize: 2, total: 3, totalPages: 2, hasNextPage: true, hasPrevPage: false });
    expect(second.data.map((c: { id: string }) => c.id)).toEqual(order.slice(2));
    expect(second.pagination).toMatchObject({ page: 2, hasNextPage: false, hasPrevPage: true });
    expect(resultOf(await getCalls(ws.key, { id: lead.id, pageSize: 500 })).pagination.pageSize).toBe(100);
  });

  it('answers an empty page for a lead without calls, and lists a call logged through leads.logCall', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id);
    expect(resultOf(await getCalls(ws.key, { id: lead.id }))).toEqual({
      data: [], pagination: { page: 1, pageSize: 50, total: 0, totalPages: 1, hasNextPage: false, hasPrevPage: false },
    });
    const logged = resultOf(await rpcPost(ctx.app, 'leads.logCall', { id: lead.id, outcome: 'SWITCHED_OFF' }, ws.key));
    expect(resultOf(await getCalls(ws.key, { id: lead.id })).data).toEqual([logged.call]);
  });

  it.each([
    ['no id', () => ({}), [['id']]],
    ['no input at all', () => undefined, [[]]],
    ['pageSize 0', (id: string) => ({ id, pageSize: 0 }), [['pageSize']]],
    ['page 0', (id: string) => ({ id, page: 0 }), [['page']]],
    ['an unknown key', (id: string) => ({ id, outcome: 'BUSY' }), [['outcome']]],
  ])('answers 400 for %s', async (_label, inputFor, paths) => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id);
    const res = await getCalls(ws.key, inputFor(lead.id));
    expectRpcFailure(res, 'BAD_REQUEST', 'leads.getCalls');
    expect(issuePaths(res)).toEqual(paths);
  });

  it('answers 403 naming leads.read when the key lacks it', async () => {
    const { ws, lead } = await leadWithCalls();
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['leads.update'] });
    expect(expectRpcFailure(await getCalls(key, { id: lead.id }), 'FORBIDDEN', 'leads.getCalls').message).toBe('missing scope: leads.read');
  });

  it("answers 404 for another workspace's lead, without any of its calls", async () => {
    const { lead } = await leadWithCalls();
    const mine = await createWorkspace(ctx.db);
    const res = await getCalls(mine.key, { id: lead.id });
    expect(expectRpcFailure(res, 'NOT_FOUND', 'leads.getCalls').message).toBe(`No lead ${JSON.stringify(lead.id)} in this workspace`);
    expect(JSON.stringify(res.body)).not.toContain('call_');
  });
});
