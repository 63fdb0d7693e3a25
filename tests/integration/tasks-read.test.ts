import { createTestContext } from '../helpers/test-app';
import { createKey, createLead, createMember, createWorkspace, unique } from '../helpers/factories';
import { rpcGet, resultOf } from '../helpers/rpc';
import { expectRpcFailure, issuePaths } from '../helpers/leads-procedures-helpers';
import { TASK_FIELDS, createClient, createTask } from '../helpers/tasks-fixtures';

const ctx = createTestContext();
afterAll(() => ctx.close());

const at = (day: number) => new Date(`2030-01-${String(day).padStart(2, '0')}T09:00:00.000Z`);

describe('GET tasks.getById', () => {
  it('answers 200 with the task: exactly its 11 fields, nulls explicit, Dates revived', async () => {
    const ws = await createWorkspace(ctx.db);
    const task = await createTask(ctx.db, ws.org.id, { title: 'Call back', dueAt: new Date('2030-06-07T08:09:10.111Z') });
    const res = await rpcGet(ctx.app, 'tasks.getById', { id: task.id }, ws.key);
    expect(res.status).toBe(200);
    const json = res.body.result.data.json;
    expect(Object.keys(json).sort()).toEqual([...TASK_FIELDS]);
    expect([json.description, json.completedAt, json.leadId, json.clientId, json.assignedToId]).toEqual([null, null, null, null, null]);
    expect(resultOf(res)).toEqual(task);
    expect(resultOf(res).dueAt).toEqual(new Date('2030-06-07T08:09:10.111Z'));
    expect(json.status).toBe('OPEN');
  });

  it("answers 404 for another workspace's task id, without any of its data", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const task = await createTask(ctx.db, theirs.org.id, { title: unique('Secret task') });
    const res = await rpcGet(ctx.app, 'tasks.getById', { id: task.id }, ws.key);
    expect(expectRpcFailure(res, 'NOT_FOUND', 'tasks.getById').message).toBe(`No task ${JSON.stringify(task.id)} in this workspace`);
    expect(JSON.stringify(res.body)).not.toContain(task.title);
  });

  it('answers 404 for an id that names no task', async () => {
    const ws = await createWorkspace(ctx.db);
    expectRpcFailure(await rpcGet(ctx.app, 'tasks.getById', { id: 'task_0000000000000000000000' }, ws.key), 'NOT_FOUND', 'tasks.getById');
  });

  it.each([
    ['no id', {}, [['id']]],
    ['an empty id', { id: '' }, [['id']]],
    ['an unknown key', { id: 'task_x', extra: 1 }, [['extra']]],
    ['no input at all', undefined, [[]]],
  ])('answers 400 for %s', async (_label, input, paths) => {
    const ws = await createWorkspace(ctx.db);
    const res = await rpcGet(ctx.app, 'tasks.getById', input, ws.key);
    expectRpcFailure(res, 'BAD_REQUEST', 'tasks.getById');
    expect(issuePaths(res)).toEqual(paths);
  });

  it('answers 403 naming tasks.read when the key lacks it', async () => {
    const ws = await createWorkspace(ctx.db);
    const task = await createTask(ctx.db, ws.org.id);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['tasks.create', 'tasks.update', 'tasks.delete'] });
    const res = await rpcGet(ctx.app, 'tasks.getById', { id: task.id }, key);
    expect(expectRpcFailure(res, 'FORBIDDEN', 'tasks.getById').message).toBe('missing scope: tasks.read');
  });
});

describe('GET tasks.getAll', () => {
  let ws: Awaited<ReturnType<typeof createWorkspace>>;
  let theirs: Awaited<ReturnType<typeof createWorkspace>>;
  let ids: Record<string, string>;
  let links: { memberA: string; leadA: string; clientA: string; theirLead: string; theirClient: string };

  beforeAll(async () => {
    ws = await createWorkspace(ctx.db);
    theirs = await createWorkspace(ctx.db);
    const memberA = (await createMember(ctx.db, ws.org.id)).id;
    const leadA = (await createLead(ctx.db, ws.org.id)).id;
    const clientA = (await createClient(ctx.db, ws.org.id)).id;
    const theirLead = (await createLead(ctx.db, theirs.org.id)).id;
    const theirClient = (await createClient(ctx.db, theirs.org.id)).id;
    links = { memberA, leadA, clientA, theirLead, theirClient };
    const specs = {
      a: { dueAt: at(5), assignedToId: memberA, leadId: leadA },
      b: { dueAt: at(2), clientId: clientA },
      c: { dueAt: null, assignedToId: memberA, status: 'DONE' as const },
      d: { dueAt: null },
      e: { dueAt: at(2), assignedToId: ws.member.id, leadId: leadA, clientId: clientA, status: 'DONE' as const },
      f: { dueAt: at(9) },
      g: { dueAt: at(1), leadId: leadA },
    };
    ids = {};
    for (const [name, spec] of Object.entries(specs)) ids[name] = (await createTask(ctx.db, ws.org.id, { title: name, ...spec })).id;
    await createTask(ctx.db, theirs.org.id, { title: 'theirs', dueAt: at(1), leadId: theirLead, clientId: theirClient, assignedToId: theirs.member.id });
  });

  /** Titles of one page, and its pagination. */
  async function titles(input: Record<string, unknown> | undefined, key = ws.key) {
    const res = await rpcGet(ctx.app, 'tasks.getAll', input, key);
    expect(res.status).toBe(200);
    const page = resultOf(res);
    return { titles: page.data.map((t: { title: string }) => t.title).join(''), pagination: page.pagination };
  }

  /** The expected order for tasks with equal due dates: newest first, i.e. created later first (then id). */
  async function tieOrder(names: string[]): Promise<string> {
    const rows = await ctx.db('tasks').where('org_id', ws.org.id).whereIn('id', names.map((n) => ids[n]!)).select('title', 'created_at', 'id');
    return rows.sort((x, y) => y.created_at.getTime() - x.created_at.getTime() || (x.id < y.id ? 1 : -1)).map((r) => r.title).join('');
  }

  it('answers every task of the workspace by due date ascending (undated last), then newest first, with no input', async () => {
    const { titles: got, pagination } = await titles(undefined);
    expect(got).toBe(`g${await tieOrder(['b', 'e'])}af${await tieOrder(['c', 'd'])}`);
    expect(pagination).toEqual({ page: 1, pageSize: 50, total: 7, totalPages: 1, hasNextPage: false, hasPrevPage: false });
  });

  it('answers the wrapper with Task objects of 11 fields', async () => {
    const res = await rpcGet(ctx.app, 'tasks.getAll', { pageSize: 1 }, ws.key);
    expect(Object.keys(res.body.result.data.json).sort()).toEqual(['data', 'pagination']);
    expect(Object.keys(res.body.result.data.json.data[0]).sort()).toEqual([...TASK_FIELDS]);
    expect(resultOf(res).data[0].dueAt).toEqual(at(1));
  });

  it.each([
    ['status OPEN', { status: 'OPEN' }, ['g', 'b', 'a', 'f', 'd']],
    ['status DONE', { status: 'DONE' }, ['e', 'c']],
    ['a member', { assignedToId: 'memberA' }, ['a', 'c']],
    ['unassigned', { assignedToId: 'unassigned' }, ['g', 'b', 'f', 'd']],
    ['a lead', { leadId: 'leadA' }, ['g', 'e', 'a']],
    ['a client', { clientId: 'clientA' }, ['b', 'e']],
    ['a lead and DONE', { leadId: 'leadA', status: 'DONE' }, ['e']],
  ])('filters by %s before paging', async (_label, filters, expected) => {
    const input = Object.fromEntries(
      Object.entries(filters).map(([k, v]) => [k, v in links ? links[v as keyof typeof links] : v]),
    );
    const { titles: got, pagination } = await titles(input);
    expect(got.split('').sort()).toEqual([...expected].sort());
    expect(pagination.total).toBe(expected.length);
    const first = await titles({ ...input, pageSize: 1 });
    expect(first.titles).toBe(got[0]);
    expect(first.pagination).toMatchObject({ total: expected.length, totalPages: expected.length, hasNextPage: expected.length > 1 });
  });

  it('keeps tasks due at or after dueAfter and strictly before dueBefore, undated ones never', async () => {
    expect((await titles({ dueAfter: at(2) })).titles.split('').sort().join('')).toBe('abef');
    expect((await titles({ dueBefore: at(5) })).titles.split('').sort().join('')).toBe('beg');
    expect((await titles({ dueAfter: at(2), dueBefore: at(9) })).titles.split('').sort().join('')).toBe('abe');
    expect((await titles({ dueAfter: at(9), dueBefore: at(2) })).pagination.total).toBe(0);
  });

  it('accepts ISO strings with a time zone for dueBefore and dueAfter (plain-JSON callers)', async () => {
    const { titles: got } = await titles({ dueAfter: '2030-01-02T10:00:00+01:00', dueBefore: '2030-01-05T09:00:00.001Z' });
    expect(got).toBe(`${await tieOrder(['b', 'e'])}a`);
  });

  it('walks every task once in pages of 3, hasNextPage false on the last', async () => {
    const all = (await titles(undefined)).titles;
    const p1 = await titles({ pageSize: 3, page: 1 });
    const p2 = await titles({ pageSize: 3, page: 2 });
    const p3 = await titles({ pageSize: 3, page: 3 });
    expect(p1.titles + p2.titles + p3.titles).toBe(all);
    expect([p1.pagination.hasNextPage, p2.pagination.hasNextPage, p3.pagination.hasNextPage]).toEqual([true, true, false]);
    expect([p1.pagination.hasPrevPage, p3.pagination.hasPrevPage]).toEqual([false, true]);
    expect(p3.pagination).toMatchObject({ total: 7, totalPages: 3 });
    expect((await titles({ pageSize: 3, page: 4 })).titles).toBe('');
  });

  it('clamps pageSize above 100 to 100', async () => {
    expect((await titles({ pageSize: 1000 })).pagination.pageSize).toBe(100);
  });

  it.each([
    ['leadId', 'theirLead'],
    ['clientId', 'theirClient'],
    ['assignedToId', 'theirMember'],
  ])("answers 200 with an empty page for another workspace's %s as a filter", async (field, which) => {
    const id = which === 'theirMember' ? theirs.member.id : links[which as keyof typeof links];
    const { titles: got, pagination } = await titles({ [field]: id });
    expect(got).toBe('');
    expect(pagination).toEqual({ page: 1, pageSize: 50, total: 0, totalPages: 1, hasNextPage: false, hasPrevPage: false });
  });

  it.each([
    ['an unknown status', { status: 'PENDING' }, [['status']]],
    ['a dueBefore without a time zone', { dueBefore: '2030-01-01T00:00:00' }, [['dueBefore']]],
    ['a dueAfter that is not a date', { dueAfter: 'tomorrow' }, [['dueAfter']]],
    ['pageSize 0', { pageSize: 0 }, [['pageSize']]],
    ['page 0', { page: 0 }, [['page']]],
    ['an unknown filter', { search: 'x' }, [['search']]],
    ['an empty leadId', { leadId: '' }, [['leadId']]],
  ])('answers 400 for %s', async (_label, input, paths) => {
    const res = await rpcGet(ctx.app, 'tasks.getAll', input, ws.key);
    expectRpcFailure(res, 'BAD_REQUEST', 'tasks.getAll');
    expect(issuePaths(res)).toEqual(paths);
  });

  it('answers 403 naming tasks.read when the key lacks it', async () => {
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['leads.read', 'tasks.create'] });
    const res = await rpcGet(ctx.app, 'tasks.getAll', {}, key);
    expect(expectRpcFailure(res, 'FORBIDDEN', 'tasks.getAll').message).toBe('missing scope: tasks.read');
  });
});
