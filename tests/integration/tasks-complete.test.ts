import { createTestContext } from '../helpers/test-app';
import { createKey, createWorkspace } from '../helpers/factories';
import { rpcPost, resultOf } from '../helpers/rpc';
import { expectRpcFailure, issuePaths } from '../helpers/leads-procedures-helpers';
import { COMPLETED, LONG_AGO, createTask, fullTask, storedTask } from '../helpers/tasks-fixtures';

const ctx = createTestContext();
afterAll(() => ctx.close());

function complete(key: string, input: unknown) {
  return rpcPost(ctx.app, 'tasks.complete', input, key);
}

function update(key: string, input: unknown) {
  return rpcPost(ctx.app, 'tasks.update', input, key);
}

describe('POST tasks.complete', () => {
  it('moves an OPEN task to DONE with completedAt now, changing nothing else', async () => {
    const ws = await createWorkspace(ctx.db);
    const task = await fullTask(ctx.db, ws);
    const before = Date.now();
    const res = await complete(ws.key, { id: task.id });
    expect(res.status).toBe(200);
    const answered = resultOf(res);
    expect(answered).toEqual({ ...task, status: 'DONE', completedAt: expect.any(Date), updatedAt: expect.any(Date) });
    expect(answered.completedAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(answered.updatedAt.getTime()).toBeGreaterThan(LONG_AGO.getTime());
    const row = await storedTask(ctx.db, ws.org.id, task.id);
    expect([row.status, row.completed_at.getTime()]).toEqual(['DONE', answered.completedAt.getTime()]);
  });

  it('answers 409 CONFLICT naming DONE when the task is already DONE, changing nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const task = await fullTask(ctx.db, ws, 'DONE');
    const before = await storedTask(ctx.db, ws.org.id, task.id);
    const { message } = expectRpcFailure(await complete(ws.key, { id: task.id }), 'CONFLICT', 'tasks.complete');
    expect(message).toBe(`Cannot complete a task that is already DONE (completed at ${COMPLETED.toISOString()}): only an OPEN task moves to DONE; set its status to OPEN to reopen it`);
    expect(await storedTask(ctx.db, ws.org.id, task.id)).toEqual(before);
  });

  it('completes a task again after it was reopened', async () => {
    const ws = await createWorkspace(ctx.db);
    const task = await createTask(ctx.db, ws.org.id);
    expect((await complete(ws.key, { id: task.id })).status).toBe(200);
    expect((await update(ws.key, { id: task.id, status: 'OPEN' })).status).toBe(200);
    expect(resultOf(await complete(ws.key, { id: task.id })).status).toBe('DONE');
  });

  it("answers 404 for another workspace's task and leaves it OPEN", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const task = await createTask(ctx.db, theirs.org.id);
    expect(expectRpcFailure(await complete(ws.key, { id: task.id }), 'NOT_FOUND', 'tasks.complete').message).toBe(`No task ${JSON.stringify(task.id)} in this workspace`);
    expect(await storedTask(ctx.db, theirs.org.id, task.id)).toMatchObject({ status: 'OPEN', completed_at: null });
  });

  it('answers 403 naming tasks.update (its scope) when the key lacks it, leaving the task OPEN', async () => {
    const ws = await createWorkspace(ctx.db);
    const task = await createTask(ctx.db, ws.org.id);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['tasks.read', 'tasks.create', 'tasks.delete'] });
    expect(expectRpcFailure(await complete(key, { id: task.id }), 'FORBIDDEN', 'tasks.complete').message).toBe('missing scope: tasks.update');
    expect(await storedTask(ctx.db, ws.org.id, task.id)).toMatchObject({ status: 'OPEN' });
  });

  it.each([
    ['no id', {}, [['id']]],
    ['a completedAt (always now)', { id: 'task_x', completedAt: new Date() }, [['completedAt']]],
  ])('answers 400 for %s', async (_label, input, paths) => {
    const ws = await createWorkspace(ctx.db);
    const res = await complete(ws.key, input);
    expectRpcFailure(res, 'BAD_REQUEST', 'tasks.complete');
    expect(issuePaths(res)).toEqual(paths);
  });
});

describe('POST tasks.complete (concurrent calls on one task)', () => {
  it('completes the task once: one 200, every other call 409, completedAt that of the winner', async () => {
    const ws = await createWorkspace(ctx.db);
    const task = await createTask(ctx.db, ws.org.id);
    const responses = await Promise.all(Array.from({ length: 8 }, () => complete(ws.key, { id: task.id })));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    const winner = resultOf(responses.find((r) => r.status === 200)!);
    expect((await storedTask(ctx.db, ws.org.id, task.id)).completed_at).toEqual(winner.completedAt);
  });
});
