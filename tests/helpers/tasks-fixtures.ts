import type { Db } from '../../src/db/knex';
import * as tasksQueries from '../../src/db/tasks';
import type { TaskFields } from '../../src/db/tasks';
import { newId } from '../../src/domain/ids';
import { createLead, unique, type createWorkspace } from './factories';

/** The 11 fields of a task as the API answers it, sorted. */
export const TASK_FIELDS = [
  'assignedToId', 'clientId', 'completedAt', 'createdAt', 'description', 'dueAt', 'id', 'leadId', 'status', 'title', 'updatedAt',
] as const;

/** A client row written straight to the table (the clients router is someone else's). */
export async function createClient(db: Db, orgId: string, name = unique('Client')): Promise<{ id: string; name: string }> {
  const id = newId('cli');
  await db('clients').insert({ org_id: orgId, id, name });
  return { id, name };
}

/** A task written straight through the query module; OPEN, undated and unlinked unless told. */
export function createTask(db: Db, orgId: string, overrides: Partial<TaskFields> = {}) {
  return tasksQueries.insert(db, orgId, {
    title: overrides.title ?? unique('Task'),
    description: overrides.description ?? null,
    status: overrides.status ?? 'OPEN',
    dueAt: overrides.dueAt ?? null,
    completedAt: overrides.completedAt ?? (overrides.status === 'DONE' ? new Date('2029-01-01T00:00:00.000Z') : null),
    leadId: overrides.leadId ?? null,
    clientId: overrides.clientId ?? null,
    assignedToId: overrides.assignedToId ?? null,
  });
}

export function storedTask(db: Db, orgId: string, id: string) {
  return db('tasks').where({ org_id: orgId, id }).first();
}

export async function taskCount(db: Db, orgId: string): Promise<number> {
  const row = await db('tasks').where({ org_id: orgId }).count({ n: '*' }).first();
  return Number(row?.n);
}

export const LONG_AGO = new Date('2020-01-01T00:00:00.000Z');
export const COMPLETED = new Date('2029-06-01T12:00:00.000Z');

/** A task with every nullable field set, its updated_at moved into the past so a write visibly advances it. */
export async function fullTask(db: Db, ws: Awaited<ReturnType<typeof createWorkspace>>, status: 'OPEN' | 'DONE' = 'OPEN') {
  const task = await createTask(db, ws.org.id, {
    title: 'Full', description: 'first', dueAt: new Date('2030-03-04T05:06:07.089Z'), status, completedAt: status === 'DONE' ? COMPLETED : null,
    leadId: (await createLead(db, ws.org.id)).id, clientId: (await createClient(db, ws.org.id)).id, assignedToId: ws.member.id,
  });
  await db('tasks').where({ org_id: ws.org.id, id: task.id }).update({ updated_at: LONG_AGO });
  return { ...task, updatedAt: LONG_AGO };
}
