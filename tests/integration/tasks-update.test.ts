import { createTestContext } from '../helpers/test-app';
import { createKey, createLead, createMember, createWorkspace } from '../helpers/factories';
import { rpcPost, resultOf } from '../helpers/rpc';
import { expectRpcFailure, issuePaths } from '../helpers/leads-procedures-helpers';
import { COMPLETED, LONG_AGO, TASK_FIELDS, createClient, fullTask, storedTask } from '../helpers/tasks-fixtures';

const ctx = createTestContext();
afterAll(() => ctx.close());

function update(key: string, input: unknown) {
  return rpcPost(ctx.app, 'tasks.update', input, key);
}

describe('POST tasks.update (fields)', () => {
  it('changes only the given field: absent fields stay, updatedAt advances, the 11 fields are answered', async () => {
    const ws = await createWorkspace(ctx.db);
    const task = await fullTask(ctx.db, ws);
    const res = await update(ws.key, { id: task.id, description: 'second' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.result.data.json).sort()).toEqual([...TASK_FIELDS]);
    const answered = resultOf(res);
    expect(answered).toEqual({ ...task, description: 'second', updatedAt: expect.any(Date) });
    expect(answered.updatedAt.getTime()).toBeGreaterThan(LONG_AGO.getTime());
    const row = await storedTask(ctx.db, ws.org.id, task.id);
    expect(row).toMatchObject({ description: 'second', title: 'Full', lead_id: task.leadId, client_id: task.clientId, assigned_to_id: ws.member.id });
    expect(row.updated_at).toEqual(answered.updatedAt);
  });

  it('clears description, dueAt, leadId, clientId and assignedToId when sent as null', async () => {
    const ws = await createWorkspace(ctx.db);
    const task = await fullTask(ctx.db, ws);
    const res = await update(ws.key, { id: task.id, description: null, dueAt: null, leadId: null, clientId: null, assignedToId: null });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toMatchObject({ title: 'Full', description: null, dueAt: null, leadId: null, clientId: null, assignedToId: null });
    expect(await storedTask(ctx.db, ws.org.id, task.id)).toMatchObject({ description: null, due_at: null, lead_id: null, client_id: null, assigned_to_id: null });
  });

  it('sets title, dueAt and new links of the same workspace', async () => {
    const ws = await createWorkspace(ctx.db);
    const task = await fullTask(ctx.db, ws);
    const member = await createMember(ctx.db, ws.org.id);
    const lead = await createLead(ctx.db, ws.org.id);
    const client = await createClient(ctx.db, ws.org.id);
    const dueAt = new Date('2031-12-31T23:59:59.999Z');
    const res = await update(ws.key, { id: task.id, title: ' Renamed ', dueAt, leadId: lead.id, clientId: client.id, assignedToId: member.id });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toMatchObject({ title: 'Renamed', dueAt, leadId: lead.id, clientId: client.id, assignedToId: member.id });
    const row = await storedTask(ctx.db, ws.org.id, task.id);
    expect([row.title, row.due_at.getTime(), row.lead_id, row.client_id, row.assigned_to_id]).toEqual(['Renamed', dueAt.getTime(), lead.id, client.id, member.id]);
  });

  it.each([
    ['title set to null', { title: null }, [['title']]],
    ['a blank title', { title: ' ' }, [['title']]],
    ['status set to null', { status: null }, [['status']]],
    ['an unknown status', { status: 'CANCELLED' }, [['status']]],
    ['completedAt (set by status only)', { completedAt: new Date() }, [['completedAt']]],
    ['an expectedUpdatedAt that is not a date', { expectedUpdatedAt: 'yesterday' }, [['expectedUpdatedAt']]],
    ['a dueAt without a time zone', { dueAt: '2031-01-01T00:00:00' }, [['dueAt']]],
  ])('answers 400 naming the field for %s, changing nothing', async (_label, patch, paths) => {
    const ws = await createWorkspace(ctx.db);
    const task = await fullTask(ctx.db, ws);
    const before = await storedTask(ctx.db, ws.org.id, task.id);
    const res = await update(ws.key, { id: task.id, ...patch });
    expectRpcFailure(res, 'BAD_REQUEST', 'tasks.update');
    expect(issuePaths(res)).toEqual(paths);
    expect(await storedTask(ctx.db, ws.org.id, task.id)).toEqual(before);
  });

  it('answers 400 naming id when it is missing', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await update(ws.key, { title: 'x' });
    expectRpcFailure(res, 'BAD_REQUEST', 'tasks.update');
    expect(issuePaths(res)).toEqual([['id']]);
  });

  it('answers 403 naming tasks.update when the key lacks it, changing nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const task = await fullTask(ctx.db, ws);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['tasks.read', 'tasks.create', 'tasks.delete'] });
    const before = await storedTask(ctx.db, ws.org.id, task.id);
    expect(expectRpcFailure(await update(key, { id: task.id, title: 'x' }), 'FORBIDDEN', 'tasks.update').message).toBe('missing scope: tasks.update');
    expect(await storedTask(ctx.db, ws.org.id, task.id)).toEqual(before);
  });
});

describe('POST tasks.update (other workspaces)', () => {
  it("answers 404 for another workspace's task id and leaves that task unchanged", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const task = await fullTask(ctx.db, theirs);
    const before = await storedTask(ctx.db, theirs.org.id, task.id);
    const res = await update(ws.key, { id: task.id, title: 'Hijacked', status: 'DONE' });
    expect(expectRpcFailure(res, 'NOT_FOUND', 'tasks.update').message).toBe(`No task ${JSON.stringify(task.id)} in this workspace`);
    expect(await storedTask(ctx.db, theirs.org.id, task.id)).toEqual(before);
  });

  it.each([
    ['leadId', 'lead'],
    ['clientId', 'client'],
    ['assignedToId', 'member'],
  ])("answers 404 naming %s for another workspace's %s and writes none of the update", async (field, label) => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const task = await fullTask(ctx.db, ws);
    const theirIds: Record<string, string> = {
      leadId: (await createLead(ctx.db, theirs.org.id)).id,
      clientId: (await createClient(ctx.db, theirs.org.id)).id,
      assignedToId: theirs.member.id,
    };
    const before = await storedTask(ctx.db, ws.org.id, task.id);
    const res = await update(ws.key, { id: task.id, title: 'Half written', status: 'DONE', [field]: theirIds[field] });
    const { message } = expectRpcFailure(res, 'NOT_FOUND', 'tasks.update');
    expect(message).toBe(`${field}: no ${label} ${JSON.stringify(theirIds[field])} in this workspace`);
    expect(await storedTask(ctx.db, ws.org.id, task.id)).toEqual(before);
  });
});

describe('POST tasks.update (status)', () => {
  it('sets completedAt to now when status DONE is set on an OPEN task', async () => {
    const ws = await createWorkspace(ctx.db);
    const task = await fullTask(ctx.db, ws);
    const before = Date.now();
    const answered = resultOf(await update(ws.key, { id: task.id, status: 'DONE' }));
    expect(answered.status).toBe('DONE');
    expect(answered.completedAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(answered.completedAt.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    const row = await storedTask(ctx.db, ws.org.id, task.id);
    expect([row.status, row.completed_at.getTime()]).toEqual(['DONE', answered.completedAt.getTime()]);
  });

  it('reopens a DONE task set OPEN and clears completedAt', async () => {
    const ws = await createWorkspace(ctx.db);
    const task = await fullTask(ctx.db, ws, 'DONE');
    const res = await update(ws.key, { id: task.id, status: 'OPEN' });
    expect(resultOf(res)).toMatchObject({ status: 'OPEN', completedAt: null });
    expect(await storedTask(ctx.db, ws.org.id, task.id)).toMatchObject({ status: 'OPEN', completed_at: null });
  });

  it('keeps the original completedAt when a DONE task is set DONE again', async () => {
    const ws = await createWorkspace(ctx.db);
    const task = await fullTask(ctx.db, ws, 'DONE');
    const res = await update(ws.key, { id: task.id, status: 'DONE', title: 'Still done' });
    expect(resultOf(res)).toMatchObject({ status: 'DONE', completedAt: COMPLETED, title: 'Still done' });
    expect((await storedTask(ctx.db, ws.org.id, task.id)).completed_at).toEqual(COMPLETED);
  });

  it('leaves status and completedAt alone when status is absent', async () => {
    const ws = await createWorkspace(ctx.db);
    const task = await fullTask(ctx.db, ws, 'DONE');
    expect(resultOf(await update(ws.key, { id: task.id, title: 'x' }))).toMatchObject({ status: 'DONE', completedAt: COMPLETED });
  });
});

describe('POST tasks.update (expectedUpdatedAt)', () => {
  it('writes when expectedUpdatedAt is the stored updatedAt, and the answer carries the next one', async () => {
    const ws = await createWorkspace(ctx.db);
    const task = await fullTask(ctx.db, ws);
    const first = await update(ws.key, { id: task.id, title: 'One', expectedUpdatedAt: LONG_AGO });
    expect(first.status).toBe(200);
    const second = await update(ws.key, { id: task.id, title: 'Two', expectedUpdatedAt: resultOf(first).updatedAt });
    expect(resultOf(second).title).toBe('Two');
    expect((await storedTask(ctx.db, ws.org.id, task.id)).title).toBe('Two');
  });

  it('answers 409 CONFLICT naming both times when the task changed since, changing nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const task = await fullTask(ctx.db, ws);
    const stale = new Date(LONG_AGO.getTime() - 1);
    const before = await storedTask(ctx.db, ws.org.id, task.id);
    const res = await update(ws.key, { id: task.id, title: 'Lost update', status: 'DONE', expectedUpdatedAt: stale });
    const { message } = expectRpcFailure(res, 'CONFLICT', 'tasks.update');
    expect(message).toContain(LONG_AGO.toISOString());
    expect(message).toContain(stale.toISOString());
    expect(await storedTask(ctx.db, ws.org.id, task.id)).toEqual(before);
  });
});
