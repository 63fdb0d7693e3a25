import request from 'supertest';
import { createTestContext } from '../helpers/test-app';
import { createKey, createLead, createMember, createWorkspace, unique } from '../helpers/factories';
import { rpcGet, rpcPost, resultOf } from '../helpers/rpc';
import { LEAD_FIELDS, countRows, expectRpcFailure, issuePaths, storedContact, storedLead } from '../helpers/leads-procedures-helpers';

const ctx = createTestContext();
afterAll(() => ctx.close());

describe('GET leads.getById', () => {
  it('answers 200 with the lead: exactly the 16 fields, nulls explicit, Dates revived', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id, { emails: ['a@example.com'], nextCallAt: new Date('2030-06-07T08:09:10.111Z') });
    const res = await rpcGet(ctx.app, 'leads.getById', { id: lead.id }, ws.key);
    expect(res.status).toBe(200);
    const json = res.body.result.data.json;
    expect(Object.keys(json).sort()).toEqual([...LEAD_FIELDS]);
    expect([json.company, json.source, json.notes, json.assignedToId, json.clientId]).toEqual([null, null, null, null, null]);
    expect(resultOf(res)).toEqual(lead);
    expect(resultOf(res).nextCallAt).toEqual(new Date('2030-06-07T08:09:10.111Z'));
  });

  it("answers 404 NOT_FOUND for another workspace's lead id, without any of its data", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, theirs.org.id, { name: unique('Secret'), phones: ['+442079460077'], company: 'Hidden Co' });
    const res = await rpcGet(ctx.app, 'leads.getById', { id: lead.id }, ws.key);
    const { message } = expectRpcFailure(res, 'NOT_FOUND', 'leads.getById');
    expect(message).toBe(`No lead ${JSON.stringify(lead.id)} in this workspace`);
    const text = JSON.stringify(res.body);
    for (const secret of [lead.name, lead.contactId, '+442079460077', 'Hidden Co']) expect(text).not.toContain(secret);
  });

  it('answers 404 NOT_FOUND for an id that names no lead', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await rpcGet(ctx.app, 'leads.getById', { id: 'lead_0000000000000000000000' }, ws.key);
    expect(expectRpcFailure(res, 'NOT_FOUND', 'leads.getById').message).toBe('No lead "lead_0000000000000000000000" in this workspace');
  });

  it.each([
    ['no id', {}, [['id']]],
    ['an empty id', { id: '' }, [['id']]],
    ['a numeric id', { id: 42 }, [['id']]],
    ['no input at all', undefined, [[]]],
  ])('answers 400 for %s', async (_label, input, paths) => {
    const ws = await createWorkspace(ctx.db);
    const res = await rpcGet(ctx.app, 'leads.getById', input, ws.key);
    expect(expectRpcFailure(res, 'BAD_REQUEST', 'leads.getById').message).toMatch(/^Invalid input: /);
    expect(issuePaths(res)).toEqual(paths);
  });

  it('answers 403 naming leads.read when the key lacks it', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['leads.create', 'leads.update', 'leads.delete'] });
    const res = await rpcGet(ctx.app, 'leads.getById', { id: lead.id }, key);
    expect(expectRpcFailure(res, 'FORBIDDEN', 'leads.getById').message).toBe('missing scope: leads.read');
  });
});

describe('POST leads.delete', () => {
  it('answers {id, deleted: true}, removes the lead row and keeps its contact row', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id);
    const keep = await createLead(ctx.db, ws.org.id);
    const res = await rpcPost(ctx.app, 'leads.delete', { id: lead.id }, ws.key);
    expect(res.status).toBe(200);
    expect(res.body.result.data.json).toEqual({ id: lead.id, deleted: true });
    expect(await storedLead(ctx.db, ws.org.id, lead.id)).toBeUndefined();
    expect(await storedContact(ctx.db, ws.org.id, lead.contactId)).toMatchObject({ id: lead.contactId, name: lead.name });
    expect(await storedLead(ctx.db, ws.org.id, keep.id)).toMatchObject({ id: keep.id });
    expect(await countRows(ctx.db, ws.org.id)).toEqual({ leads: 1, contacts: 2 });
    expectRpcFailure(await rpcGet(ctx.app, 'leads.getById', { id: lead.id }, ws.key), 'NOT_FOUND', 'leads.getById');
  });

  it('leaves its tasks with no lead, and takes its calls, stored JSON and count with it', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id, { status: 'CONTACTED' });
    const task = resultOf<{ id: string }>(await rpcPost(ctx.app, 'tasks.create', { title: 'Call back', leadId: lead.id }, ws.key));
    expect((await rpcPost(ctx.app, 'leads.logCall', { id: lead.id, outcome: 'BUSY' }, ws.key)).status).toBe(200);

    expect((await rpcPost(ctx.app, 'leads.delete', { id: lead.id }, ws.key)).status).toBe(200);

    expect(resultOf(await rpcGet(ctx.app, 'tasks.getById', { id: task.id }, ws.key))).toMatchObject({ id: task.id, title: 'Call back', leadId: null });
    const left = async (table: string) => Number((await ctx.db(table).where({ org_id: ws.org.id }).count({ n: '*' }))[0]!.n);
    expect([await left('lead_calls'), await left('lead_json')]).toEqual([0, 0]);
    const counted = await ctx.db('lead_counts').where({ org_id: ws.org.id }).sum({ n: 'n' });
    expect(Number(counted[0]!.n)).toBe(0);
    const page = await request(ctx.app).get('/api/v1/leads').set('Authorization', `Bearer ${ws.key}`);
    expect(page.body).toMatchObject({ data: [], pagination: { total: 0 } });
  });

  it('answers 404 when the lead was already deleted', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id);
    expect((await rpcPost(ctx.app, 'leads.delete', { id: lead.id }, ws.key)).status).toBe(200);
    const res = await rpcPost(ctx.app, 'leads.delete', { id: lead.id }, ws.key);
    expect(expectRpcFailure(res, 'NOT_FOUND', 'leads.delete').message).toBe(`No lead ${JSON.stringify(lead.id)} in this workspace`);
  });

  it("answers 404 for another workspace's lead id and that lead survives", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, theirs.org.id);
    const res = await rpcPost(ctx.app, 'leads.delete', { id: lead.id }, ws.key);
    expectRpcFailure(res, 'NOT_FOUND', 'leads.delete');
    expect(await storedLead(ctx.db, theirs.org.id, lead.id)).toMatchObject({ id: lead.id, contact_id: lead.contactId });
  });

  it('answers 403 naming leads.delete when the key lacks it and the lead survives', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['leads.read', 'leads.update'] });
    const res = await rpcPost(ctx.app, 'leads.delete', { id: lead.id }, key);
    expect(expectRpcFailure(res, 'FORBIDDEN', 'leads.delete').message).toBe('missing scope: leads.delete');
    expect(await storedLead(ctx.db, ws.org.id, lead.id)).toMatchObject({ id: lead.id });
  });

  it('answers 400 naming id when it is missing, deleting nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    await createLead(ctx.db, ws.org.id);
    const res = await rpcPost(ctx.app, 'leads.delete', {}, ws.key);
    expectRpcFailure(res, 'BAD_REQUEST', 'leads.delete');
    expect(issuePaths(res)).toEqual([['id']]);
    expect(await countRows(ctx.db, ws.org.id)).toEqual({ leads: 1, contacts: 1 });
  });
});

describe('GET leads.getAll (parity with GET /api/v1/leads)', () => {
  let ws: Awaited<ReturnType<typeof createWorkspace>>;
  let memberA: string;
  let token: string;
  /** Every lead of the workspace, in the spec's order: nextCallAt ascending (nulls last), createdAt descending, id. */
  let ordered: { id: string; status: string; assignedToId: string | null; name: string }[];

  beforeAll(async () => {
    ws = await createWorkspace(ctx.db);
    memberA = (await createMember(ctx.db, ws.org.id)).id;
    token = unique('tok').toLowerCase();
    const at = (day: number) => new Date(`2030-01-${String(day).padStart(2, '0')}T09:00:00.000Z`);
    const specs = [
      { status: 'CONTACTED', nextCallAt: at(5), assignedToId: memberA, name: `Alpha ${token}` },
      { status: 'CONTACTED', nextCallAt: at(2), assignedToId: null, name: 'Bravo' },
      { status: 'LOST', nextCallAt: null, assignedToId: memberA, name: `Charlie ${token}` },
      { status: 'CONTACTED', nextCallAt: null, assignedToId: null, name: `Delta ${token}` },
      { status: 'NOT_CONTACTED', nextCallAt: at(2), assignedToId: memberA, name: 'Echo' },
      { status: 'QUALIFIED', nextCallAt: at(9), assignedToId: ws.member.id, name: 'Foxtrot' },
      { status: 'CONTACTED', nextCallAt: at(1), assignedToId: ws.member.id, name: `Golf ${token}` },
    ] as const;
    for (const spec of specs) await createLead(ctx.db, ws.org.id, { ...spec, phones: ['+442079460018'] });
    const other = await createWorkspace(ctx.db);
    await createLead(ctx.db, other.org.id, { status: 'CONTACTED', name: `Other ${token}` });
    const rows = await ctx.db({ l: 'leads' })
      .join({ c: 'contacts' }, function on() { this.on('c.org_id', '=', 'l.org_id').andOn('c.id', '=', 'l.contact_id'); })
      .where('l.org_id', ws.org.id)
      .select('l.id', 'l.status', 'l.assigned_to_id', 'l.next_call_at', 'l.created_at', 'c.name');
    ordered = rows
      .sort((a, b) =>
        (a.next_call_at?.getTime() ?? Infinity) - (b.next_call_at?.getTime() ?? Infinity)
        || b.created_at.getTime() - a.created_at.getTime()
        || (a.id < b.id ? 1 : -1))
      .map((r) => ({ id: r.id, status: r.status, assignedToId: r.assigned_to_id, name: r.name }));
  });

  async function both(filters: Record<string, string | number>) {
    const rpc = await rpcGet(ctx.app, 'leads.getAll', filters, ws.key);
    const rest = await request(ctx.app).get('/api/v1/leads').query(filters).set('Authorization', `Bearer ${ws.key}`);
    expect([rpc.status, rest.status]).toEqual([200, 200]);
    for (const item of rpc.body.result.data.json.data) expect(Object.keys(item).sort()).toEqual([...LEAD_FIELDS]);
    expect(rpc.body.result.data.json).toEqual(rest.body);
    return resultOf(rpc) as { data: { id: string }[]; pagination: Record<string, unknown> };
  }

  const ids = (page: { data: { id: string }[] }) => page.data.map((l) => l.id);

  it('answers every lead of the workspace, in the spec order, the same data and pagination as the REST list', async () => {
    const page = await both({});
    expect(ids(page)).toEqual(ordered.map((l) => l.id));
    expect(page.pagination).toEqual({ page: 1, pageSize: 50, total: 7, totalPages: 1, hasNextPage: false, hasPrevPage: false, nextCursor: null });
  });

  it.each([
    ['status', () => ({ status: 'CONTACTED' }), (l: (typeof ordered)[number]) => l.status === 'CONTACTED'],
    ['assignedToId of a member', () => ({ assignedToId: memberA }), (l: (typeof ordered)[number]) => l.assignedToId === memberA],
    ['assignedToId unassigned', () => ({ assignedToId: 'unassigned' }), (l: (typeof ordered)[number]) => l.assignedToId === null],
    ['search (case-insensitive)', () => ({ search: token.toUpperCase() }), (l: (typeof ordered)[number]) => l.name.includes(token)],
    ['status and search', () => ({ status: 'CONTACTED', search: token }), (l: (typeof ordered)[number]) => l.status === 'CONTACTED' && l.name.includes(token)],
  ])('filters by %s exactly as the REST list does, before paginating', async (_label, filters, keep) => {
    const expected = ordered.filter(keep).map((l) => l.id);
    expect(expected.length).toBeGreaterThan(1);
    const page = await both(filters());
    expect(ids(page)).toEqual(expected);
    expect(page.pagination).toMatchObject({ total: expected.length, totalPages: 1 });
  });

  it.each([
    [1, { hasPrevPage: false, hasNextPage: true, nextCursor: expect.any(String) }],
    [2, { hasPrevPage: true, hasNextPage: true, nextCursor: expect.any(String) }],
    [3, { hasPrevPage: true, hasNextPage: false, nextCursor: null }],
    [4, { hasPrevPage: true, hasNextPage: false, nextCursor: null }],
  ])('answers page %i of size 3 as the REST list does', async (pageNo, flags) => {
    const page = await both({ page: pageNo, pageSize: 3 });
    expect(ids(page)).toEqual(ordered.slice((pageNo - 1) * 3, pageNo * 3).map((l) => l.id));
    expect(page.pagination).toEqual({ page: pageNo, pageSize: 3, total: 7, totalPages: 3, ...flags });
  });

  it('pages a filtered list: search + status, page 2 of size 1', async () => {
    const expected = ordered.filter((l) => l.status === 'CONTACTED' && l.name.includes(token)).map((l) => l.id);
    const page = await both({ status: 'CONTACTED', search: token, page: 2, pageSize: 1 });
    expect(ids(page)).toEqual([expected[1]]);
    expect(page.pagination).toEqual({ page: 2, pageSize: 1, total: expected.length, totalPages: expected.length, hasNextPage: expected.length > 2, hasPrevPage: true, nextCursor: expected.length > 2 ? expect.any(String) : null });
  });

  it('answers the default first page (size 50) when called with no input at all, as the REST list without a query', async () => {
    const rpc = await rpcGet(ctx.app, 'leads.getAll', undefined, ws.key);
    const rest = await request(ctx.app).get('/api/v1/leads').set('Authorization', `Bearer ${ws.key}`);
    expect([rpc.status, rest.status]).toEqual([200, 200]);
    expect(rpc.body.result.data.json).toEqual(rest.body);
    expect(ids(resultOf(rpc))).toEqual(ordered.map((l) => l.id));
    expect(resultOf(rpc).pagination).toMatchObject({ page: 1, pageSize: 50, total: 7 });
  });

  it('clamps pageSize 500 to 100 on both', async () => {
    const page = await both({ pageSize: 500 });
    expect(page.pagination).toMatchObject({ pageSize: 100, total: 7, totalPages: 1 });
  });

  it('answers 400 naming page for page 0, as the REST list does', async () => {
    const rpc = await rpcGet(ctx.app, 'leads.getAll', { page: 0 }, ws.key);
    expectRpcFailure(rpc, 'BAD_REQUEST', 'leads.getAll');
    expect(issuePaths(rpc)).toEqual([['page']]);
    const rest = await request(ctx.app).get('/api/v1/leads').query({ page: 0 }).set('Authorization', `Bearer ${ws.key}`);
    expect(rest.status).toBe(400);
    expect(rest.body.error).toMatchObject({ code: 'BAD_REQUEST', issues: [{ path: ['page'] }] });
  });
});
