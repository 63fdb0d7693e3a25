import { createTestContext } from '../helpers/test-app';
import { createKey, createLead, createMember, createWorkspace } from '../helpers/factories';
import { rpcGet, rpcPost, resultOf } from '../helpers/rpc';
import { expectRpcFailure, issuePaths } from '../helpers/leads-procedures-helpers';
import { TASK_FIELDS, createClient, createTask, storedTask, taskCount } from '../helpers/tasks-fixtures';

const ctx = createTestContext();
afterAll(() => ctx.close());

function create(key: string, input: unknown) {
  return rpcPost(ctx.app, 'tasks.create', input, key);
}

describe('POST tasks.create', () => {
  it('creates an OPEN task with only a title, every other field null, and stores it', async () => {
    const ws = await createWorkspace(ctx.db);
    const before = Date.now();
    const res = await create(ws.key, { title: '  Send the quote  ' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.result.data.json).sort()).toEqual([...TASK_FIELDS]);
    const task = resultOf(res);
    expect(task).toEqual({
      id: expect.stringMatching(/^task_[0-9A-Za-z]{22}$/), title: 'Send the quote', description: null, status: 'OPEN',
      dueAt: null, completedAt: null, leadId: null, clientId: null, assignedToId: null, createdAt: expect.any(Date), updatedAt: expect.any(Date),
    });
    expect(task.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(await storedTask(ctx.db, ws.org.id, task.id)).toMatchObject({
      title: 'Send the quote', description: null, status: 'OPEN', due_at: null, completed_at: null, lead_id: null, client_id: null, assigned_to_id: null,
    });
  });

  it('links a lead, a client and a member of the workspace and keeps dueAt to the millisecond', async () => {
    const ws = await createWorkspace(ctx.db);
    const member = await createMember(ctx.db, ws.org.id);
    const lead = await createLead(ctx.db, ws.org.id);
    const client = await createClient(ctx.db, ws.org.id);
    const dueAt = new Date('2031-02-03T04:05:06.789Z');
    const res = await create(ws.key, { title: 'Visit', description: 'Bring samples', dueAt, leadId: lead.id, clientId: client.id, assignedToId: member.id });
    expect(res.status).toBe(200);
    const task = resultOf(res);
    expect(task).toMatchObject({ description: 'Bring samples', dueAt, leadId: lead.id, clientId: client.id, assignedToId: member.id, status: 'OPEN' });
    const row = await storedTask(ctx.db, ws.org.id, task.id);
    expect(row).toMatchObject({ lead_id: lead.id, client_id: client.id, assigned_to_id: member.id, description: 'Bring samples' });
    expect(row.due_at.getTime()).toBe(dueAt.getTime());
    expect(resultOf(await rpcGet(ctx.app, 'tasks.getById', { id: task.id }, ws.key))).toEqual(task);
  });

  it('accepts null for every optional field and an ISO string with a zone for dueAt', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await create(ws.key, { title: 'T', description: null, dueAt: '2031-01-01T10:00:00+02:00', leadId: null, clientId: null, assignedToId: null });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toMatchObject({ dueAt: new Date('2031-01-01T08:00:00.000Z'), leadId: null, clientId: null, assignedToId: null });
  });

  it.each([
    ['no title', {}, [['title']]],
    ['a blank title', { title: '   ' }, [['title']]],
    ['a title over 500 characters', { title: 'x'.repeat(501) }, [['title']]],
    ['a NUL character in the description', { title: 'T', description: 'a\u0000b' }, [['description']]],
    ['a dueAt without a time zone', { title: 'T', dueAt: '2031-01-01T10:00:00' }, [['dueAt']]],
    ['a status (tasks start OPEN)', { title: 'T', status: 'DONE' }, [['status']]],
    ['a numeric leadId', { title: 'T', leadId: 7 }, [['leadId']]],
    ['an unknown key', { title: 'T', priority: 'high' }, [['priority']]],
  ])('answers 400 naming the field for %s, creating nothing', async (_label, input, paths) => {
    const ws = await createWorkspace(ctx.db);
    const res = await create(ws.key, input);
    expectRpcFailure(res, 'BAD_REQUEST', 'tasks.create');
    expect(issuePaths(res)).toEqual(paths);
    expect(await taskCount(ctx.db, ws.org.id)).toBe(0);
  });

  it('answers 403 naming tasks.create when the key lacks it, creating nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['tasks.read', 'tasks.update'] });
    expect(expectRpcFailure(await create(key, { title: 'T' }), 'FORBIDDEN', 'tasks.create').message).toBe('missing scope: tasks.create');
    expect(await taskCount(ctx.db, ws.org.id)).toBe(0);
  });

  it.each([
    ['leadId', 'lead'],
    ['clientId', 'client'],
    ['assignedToId', 'member'],
  ])("answers 404 naming %s for another workspace's %s, creating nothing", async (field, label) => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const theirIds: Record<string, string> = {
      leadId: (await createLead(ctx.db, theirs.org.id)).id,
      clientId: (await createClient(ctx.db, theirs.org.id)).id,
      assignedToId: theirs.member.id,
    };
    const res = await create(ws.key, { title: 'T', [field]: theirIds[field] });
    const { message } = expectRpcFailure(res, 'NOT_FOUND', 'tasks.create');
    expect(message).toBe(`${field}: no ${label} ${JSON.stringify(theirIds[field])} in this workspace`);
    expect(await taskCount(ctx.db, ws.org.id)).toBe(0);
    expect(await taskCount(ctx.db, theirs.org.id)).toBe(0);
  });

  it('answers 404 naming clientId when only the client is unknown, even with a valid lead', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id);
    const res = await create(ws.key, { title: 'T', leadId: lead.id, clientId: 'cli_doesNotExist' });
    expect(expectRpcFailure(res, 'NOT_FOUND', 'tasks.create').message).toMatch(/^clientId: /);
    expect(await taskCount(ctx.db, ws.org.id)).toBe(0);
  });
});

describe('POST tasks.delete', () => {
  it('answers {id, deleted: true} and removes only that task', async () => {
    const ws = await createWorkspace(ctx.db);
    const task = await createTask(ctx.db, ws.org.id);
    const keep = await createTask(ctx.db, ws.org.id);
    const res = await rpcPost(ctx.app, 'tasks.delete', { id: task.id }, ws.key);
    expect(res.status).toBe(200);
    expect(res.body.result.data.json).toEqual({ id: task.id, deleted: true });
    expect(await storedTask(ctx.db, ws.org.id, task.id)).toBeUndefined();
    expect(await storedTask(ctx.db, ws.org.id, keep.id)).toMatchObject({ id: keep.id });
    expectRpcFailure(await rpcGet(ctx.app, 'tasks.getById', { id: task.id }, ws.key), 'NOT_FOUND', 'tasks.getById');
  });

  it('answers 404 when the task was already deleted', async () => {
    const ws = await createWorkspace(ctx.db);
    const task = await createTask(ctx.db, ws.org.id);
    expect((await rpcPost(ctx.app, 'tasks.delete', { id: task.id }, ws.key)).status).toBe(200);
    const res = await rpcPost(ctx.app, 'tasks.delete', { id: task.id }, ws.key);
    expect(expectRpcFailure(res, 'NOT_FOUND', 'tasks.delete').message).toBe(`No task ${JSON.stringify(task.id)} in this workspace`);
  });

  it("answers 404 for another workspace's task id and that task survives", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const task = await createTask(ctx.db, theirs.org.id);
    expectRpcFailure(await rpcPost(ctx.app, 'tasks.delete', { id: task.id }, ws.key), 'NOT_FOUND', 'tasks.delete');
    expect(await storedTask(ctx.db, theirs.org.id, task.id)).toMatchObject({ id: task.id, title: task.title });
  });

  it('answers 403 naming tasks.delete when the key lacks it and the task survives', async () => {
    const ws = await createWorkspace(ctx.db);
    const task = await createTask(ctx.db, ws.org.id);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['tasks.read', 'tasks.update'] });
    const res = await rpcPost(ctx.app, 'tasks.delete', { id: task.id }, key);
    expect(expectRpcFailure(res, 'FORBIDDEN', 'tasks.delete').message).toBe('missing scope: tasks.delete');
    expect(await storedTask(ctx.db, ws.org.id, task.id)).toMatchObject({ id: task.id });
  });

  it.each([
    ['no id', {}, [['id']]],
    ['an unknown key', { id: 'task_x', force: true }, [['force']]],
  ])('answers 400 for %s, deleting nothing', async (_label, input, paths) => {
    const ws = await createWorkspace(ctx.db);
    await createTask(ctx.db, ws.org.id);
    const res = await rpcPost(ctx.app, 'tasks.delete', input, ws.key);
    expectRpcFailure(res, 'BAD_REQUEST', 'tasks.delete');
    expect(issuePaths(res)).toEqual(paths);
    expect(await taskCount(ctx.db, ws.org.id)).toBe(1);
  });
});
