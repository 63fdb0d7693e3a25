import { createTestContext } from '../helpers/test-app';
import { createKey, createWorkspace } from '../helpers/factories';
import { rpcGet, rpcPost, resultOf } from '../helpers/rpc';
import { expectRpcFailure, issuePaths } from '../helpers/leads-procedures-helpers';
import * as membersQueries from '../../src/db/members';

const ctx = createTestContext();
afterAll(() => ctx.close());

const MEMBER_FIELDS = ['createdAt', 'email', 'id', 'name', 'permissions'];

describe('GET orgMembers.getById', () => {
  it('answers 200 with the member: id, name, email, permissions and createdAt only', async () => {
    const ws = await createWorkspace(ctx.db);
    const member = await membersQueries.create(ctx.db, ws.org.id, { name: 'Ada Admin', email: 'Ada@Example.com', permissions: ['ADMIN'] });
    const res = await rpcGet(ctx.app, 'orgMembers.getById', { id: member.id }, ws.key);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.result.data.json).sort()).toEqual(MEMBER_FIELDS);
    expect(resultOf(res)).toEqual({ id: member.id, name: 'Ada Admin', email: 'ada@example.com', permissions: ['ADMIN'], createdAt: member.createdAt });
  });

  it("answers 404 for another workspace's member, without any of its data", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const res = await rpcGet(ctx.app, 'orgMembers.getById', { id: theirs.member.id }, ws.key);
    expect(expectRpcFailure(res, 'NOT_FOUND', 'orgMembers.getById').message).toBe(`No member ${JSON.stringify(theirs.member.id)} in this workspace`);
    expect(JSON.stringify(res.body)).not.toContain(theirs.member.email);
  });

  it.each([
    ['no id', {}, [['id']]],
    ['an unknown key', { id: 'mem_x', email: 'a@b.c' }, [['email']]],
  ])('answers 400 for %s', async (_label, input, paths) => {
    const ws = await createWorkspace(ctx.db);
    const res = await rpcGet(ctx.app, 'orgMembers.getById', input, ws.key);
    expectRpcFailure(res, 'BAD_REQUEST', 'orgMembers.getById');
    expect(issuePaths(res)).toEqual(paths);
  });

  it('answers 403 naming orgMembers.read when the key lacks it', async () => {
    const ws = await createWorkspace(ctx.db);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['leads.read', 'tasks.read'] });
    const res = await rpcGet(ctx.app, 'orgMembers.getById', { id: ws.member.id }, key);
    expect(expectRpcFailure(res, 'FORBIDDEN', 'orgMembers.getById').message).toBe('missing scope: orgMembers.read');
  });

  it('is a read: a POST answers 405', async () => {
    const ws = await createWorkspace(ctx.db);
    expect((await rpcPost(ctx.app, 'orgMembers.getById', { id: ws.member.id }, ws.key)).status).toBe(405);
  });
});

describe('GET orgMembers.getAll', () => {
  let ws: Awaited<ReturnType<typeof createWorkspace>>;
  let expected: string[];

  beforeAll(async () => {
    ws = await createWorkspace(ctx.db);
    // Two members share a name, so their order is decided by id.
    for (const name of ['Zed', 'amy', 'Bob', 'Bob', 'Carla']) {
      await membersQueries.create(ctx.db, ws.org.id, { name, email: `${name}.${Math.random().toString(36).slice(2)}@example.com` });
    }
    const other = await createWorkspace(ctx.db);
    await membersQueries.create(ctx.db, other.org.id, { name: 'Aaron Elsewhere', email: 'aaron@example.com' });
    const rows = await ctx.db('org_members').where({ org_id: ws.org.id }).orderByRaw('name asc, id asc').select('id');
    expected = rows.map((r: { id: string }) => r.id);
  });

  it("answers the workspace's members ordered by name then id, in the pagination wrapper, with no input", async () => {
    const res = await rpcGet(ctx.app, 'orgMembers.getAll', undefined, ws.key);
    expect(res.status).toBe(200);
    const page = resultOf(res);
    expect(page.data.map((m: { id: string }) => m.id)).toEqual(expected);
    expect(page.data.some((m: { name: string }) => m.name === 'Aaron Elsewhere')).toBe(false);
    expect(Object.keys(res.body.result.data.json.data[0]).sort()).toEqual(MEMBER_FIELDS);
    expect(page.pagination).toEqual({ page: 1, pageSize: 50, total: 6, totalPages: 1, hasNextPage: false, hasPrevPage: false });
  });

  it('walks the members in pages of 4', async () => {
    const first = resultOf(await rpcGet(ctx.app, 'orgMembers.getAll', { pageSize: 4 }, ws.key));
    const second = resultOf(await rpcGet(ctx.app, 'orgMembers.getAll', { pageSize: 4, page: 2 }, ws.key));
    expect([...first.data, ...second.data].map((m: { id: string }) => m.id)).toEqual(expected);
    expect(first.pagination).toEqual({ page: 1, pageSize: 4, total: 6, totalPages: 2, hasNextPage: true, hasPrevPage: false });
    expect(second.pagination).toMatchObject({ page: 2, hasNextPage: false, hasPrevPage: true });
  });

  it('clamps pageSize above 100 to 100', async () => {
    expect(resultOf(await rpcGet(ctx.app, 'orgMembers.getAll', { pageSize: 101 }, ws.key)).pagination.pageSize).toBe(100);
  });

  it.each([
    ['pageSize 0', { pageSize: 0 }, [['pageSize']]],
    ['a fractional page', { page: 1.5 }, [['page']]],
    ['a filter it does not have', { search: 'Bob' }, [['search']]],
  ])('answers 400 for %s', async (_label, input, paths) => {
    const res = await rpcGet(ctx.app, 'orgMembers.getAll', input, ws.key);
    expectRpcFailure(res, 'BAD_REQUEST', 'orgMembers.getAll');
    expect(issuePaths(res)).toEqual(paths);
  });

  it('answers 403 naming orgMembers.read when the key lacks it', async () => {
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['leads.read'] });
    const res = await rpcGet(ctx.app, 'orgMembers.getAll', {}, key);
    expect(expectRpcFailure(res, 'FORBIDDEN', 'orgMembers.getAll').message).toBe('missing scope: orgMembers.read');
  });
});
